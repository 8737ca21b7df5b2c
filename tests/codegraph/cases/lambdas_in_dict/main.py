def double(x):
    return x * 2


operations = {"inc": lambda x: x + 1, "double": lambda x: double(x)}
operations["double"](2)
