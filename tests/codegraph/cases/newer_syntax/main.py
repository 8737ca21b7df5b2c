type Pair = tuple[int, int]


def first[T](items: list[T]) -> T:
    return items[0]


def describe(value):
    match value:
        case [x, *_]:
            return first(value)
        case _:
            return str(value)


describe([1, 2])
