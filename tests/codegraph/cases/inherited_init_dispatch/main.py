class Base:
    def __init__(self):
        self.setup()

    def setup(self):
        return 0


class Child(Base):
    def setup(self):
        return 1


Child()
Base()
