def step():
    return 1


def inner(fn):
    return fn()


def middle(fn):
    return inner(fn)


def outer(fn):
    return middle(fn=fn)


outer(step)
