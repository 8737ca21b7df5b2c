def helper():
    return 1


def factory():
    return helper


def run():
    return factory()()


run()
