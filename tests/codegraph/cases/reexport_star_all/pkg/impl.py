__all__ = ["public"]


def public():
    return 1


def hidden():
    return 2
