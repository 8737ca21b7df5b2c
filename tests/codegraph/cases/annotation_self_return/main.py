import copy
from typing import Self


class Query:
    def __init__(self):
        self.parts = []

    def where(self, part) -> Self:
        new = copy.copy(self)
        new.parts = [*self.parts, part]
        return new

    def build(self):
        return ",".join(self.parts)


def run():
    return Query().where("a").where("b").build()


run()
