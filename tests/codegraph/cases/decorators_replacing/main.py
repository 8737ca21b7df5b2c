def replacement():
    return "replaced"


def replace(fn):
    return replacement


@replace
def original():
    return "original"


original()
