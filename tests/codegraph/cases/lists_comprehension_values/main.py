def first():
    return 1


def second():
    return 2


def wrap(fn):
    return fn


wrapped = [wrap(fn) for fn in (first, second)]
results = [fn() for fn in wrapped]
