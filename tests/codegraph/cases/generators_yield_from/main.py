def first():
    return 1


def second():
    return 2


def inner():
    yield first


def outer():
    yield from inner()
    yield second


for step in outer():
    step()
