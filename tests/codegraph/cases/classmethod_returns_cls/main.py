from typing import Self


class Base:
    @classmethod
    def create(cls):
        return cls()

    @classmethod
    def build(cls) -> Self:
        return cls.create()

    def hello(self):
        return 1


class Child(Base):
    def hello(self):
        return 2


def child():
    return Child.create().hello()


def child_self():
    return Child.build().hello()


def base():
    return Base.create().hello()


def instance():
    return Child().create().hello()


child()
child_self()
base()
instance()
