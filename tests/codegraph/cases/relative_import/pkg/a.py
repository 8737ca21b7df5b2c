from .b import g
from . import c


def f():
    g()
    return c.h()
