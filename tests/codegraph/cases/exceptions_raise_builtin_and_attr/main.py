import errors


def check(value):
    if value < 0:
        raise ValueError
    if value == 0:
        raise errors.Empty
    return value


for value in (1, 0):
    try:
        check(value)
    except errors.Empty:
        pass
