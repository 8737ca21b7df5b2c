def one():
    return 1


def two():
    return 2


def three():
    return 3


table = {"one": one, "two": two}
table.update({"three": three})
table.get("one")()
for handler in table.values():
    handler()
for _name, handler in table.items():
    handler()
