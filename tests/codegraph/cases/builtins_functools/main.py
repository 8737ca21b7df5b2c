import functools


def add(a, b):
    return a + b


def greet(greeting, name):
    return greeting + name


total = functools.reduce(add, [1, 2, 3])
hello = functools.partial(greet, "hello ")
hello("you")
