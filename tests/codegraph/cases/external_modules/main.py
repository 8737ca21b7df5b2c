import json as j
import os
from collections import OrderedDict
from os.path import join as pjoin


def run():
    os.path.join("a", "b")
    j.dumps({})
    OrderedDict()
    pjoin("a", "c")
    return os.getcwd()


run()
