def first():
    return 1


def second():
    return 2


def identity(fn):
    return fn


identity(first)()
kept = identity(second)
