def logged(fn):
    def wrapper(*args):
        return fn(*args)

    return wrapper


@logged
def first():
    return 1


@logged
def second():
    return 2


first()
second()
