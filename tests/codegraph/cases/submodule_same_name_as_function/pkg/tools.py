def tools():
    return helper()


def helper():
    return 1
