def double(x):
    return x * 2


def positive(x):
    return x > 0


doubled = list(map(double, [1, 2]))
kept = list(filter(positive, [-1, 1]))
