def g():
    pass


def f():
    g()


f()
