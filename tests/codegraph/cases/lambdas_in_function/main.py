def helper():
    return 1


def other():
    return 2


def run():
    first = lambda: helper()
    second = lambda: other()
    return second()


run()
