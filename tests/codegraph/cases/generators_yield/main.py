def first():
    return 1


def second():
    return 2


def steps():
    yield first
    yield second


for step in steps():
    step()
