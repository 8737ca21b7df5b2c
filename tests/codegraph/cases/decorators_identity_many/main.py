HOOKS = []


def hook(fn):
    HOOKS.append(fn)
    return fn


@hook
def first():
    return 1


@hook
def second():
    return 2


first()
