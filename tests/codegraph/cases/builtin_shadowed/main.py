def len(x):
    return 0


def measure(items):
    return len(items)


def local_shadow(items):
    sorted = reversed
    return sorted(items)


measure([1])
local_shadow([1])
