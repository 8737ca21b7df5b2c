def first():
    return 1


def pick():
    return first


if (chosen := pick()) is not None:
    chosen()
