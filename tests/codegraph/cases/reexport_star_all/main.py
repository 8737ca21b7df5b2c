import pkg
from pkg import *


def hidden():
    return 3


pkg.public()
public()
hidden()
