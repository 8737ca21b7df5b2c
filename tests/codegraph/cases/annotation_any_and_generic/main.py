from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Box(Generic[T]):
    def get(self):
        return 1


class Empty(Generic[T]):
    pass


def run(callback: Any):
    return callback()


def make():
    return Box()


run(make).get()
Empty()
