def square(x):
    return x * x


def total(items):
    return sum([square(i) for i in items])


total([1, 2])
