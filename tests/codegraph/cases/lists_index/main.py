def first():
    return 1


def second():
    return 2


steps = [first, second]
steps[1]()
