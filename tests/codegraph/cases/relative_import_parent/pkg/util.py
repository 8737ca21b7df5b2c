def u():
    return 1


def v():
    return 2
