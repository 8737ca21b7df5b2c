def first():
    return 1


class Node:
    def __init__(self, children):
        self.children = children

    def __iter__(self):
        return iter(self.children)


class Walker:
    def __init__(self):
        self.position = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.position:
            raise StopIteration
        self.position += 1
        return first


def total():
    node = Node([1, 2])
    return [child for child in node]


total()
for step in Walker():
    step()
