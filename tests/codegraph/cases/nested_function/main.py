def outer():
    def inner():
        return helper()

    return inner()


def helper():
    return 1


outer()
