def helper():
    return 1


def apply(fn):
    return fn()


apply(lambda: helper())
