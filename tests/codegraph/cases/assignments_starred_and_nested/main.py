def first():
    return 1


def second():
    return 2


def third():
    return 3


(a, b), c = (first, second), third
b()
*init, last = first, second, third
last()
x = y = first
y()
