def helper():
    return 1


def make():
    return lambda: helper()


make()()
