import copy
from typing import Self


class Generative:
    def where(self, part) -> Self:
        new = copy.copy(self)
        new.parts = [*self.parts, part]
        return new


class Query(Generative):
    def __init__(self):
        self.parts = []

    def build(self):
        return ",".join(self.parts)


class Builder:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return self


class TaggedBuilder(Builder):
    def tag(self, name):
        return self.add("#" + name)

    def done(self):
        return self.items


def run():
    Query().where("a").where("b").build()
    TaggedBuilder().add(1).tag("x").done()


run()
