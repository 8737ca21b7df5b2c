def first():
    return 1


def second():
    return 2


def third():
    return 3


pair = (first, second)
a, b = pair
b()
head, *rest = [first, second, third]
rest[1]()
