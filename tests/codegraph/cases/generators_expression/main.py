def first():
    return 1


def second():
    return 2


def wrap(fn):
    return fn


stages = (wrap(fn) for fn in [first, second])
for stage in stages:
    stage()
