from utils import *


def _private():
    return 3


helper()
_private()
