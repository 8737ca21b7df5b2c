def helper():
    return _inner()


def _inner():
    return 1
