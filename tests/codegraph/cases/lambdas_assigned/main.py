def double(x):
    return x * 2


square = lambda x: double(x) * x
square(3)
