class Widget:
    def __init__(self):
        self.size = 1


class Gadget:
    def __init__(self):
        self.size = 2


def build(factory):
    return factory()


build(Widget)
build(factory=Gadget)
