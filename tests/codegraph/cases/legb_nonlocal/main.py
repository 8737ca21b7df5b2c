def other():
    return 2


def outer():
    def step():
        return 1

    def bump():
        nonlocal step
        step = other

    first = step()
    bump()
    second = step()
    return first + second


outer()
