import argparse
from collections import OrderedDict


def build():
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("--flag")
    return parser


def order():
    ordered = OrderedDict()
    ordered["a"] = 1
    ordered.move_to_end("a")
    return ordered


build().parse_args([])
order()
