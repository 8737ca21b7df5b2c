class Base:
    def __init__(self):
        self.ready = True

    def describe(self):
        return "base"


class Child(Base):
    def __init__(self):
        super().__init__()

    def describe(self):
        return super().describe() + "!"


c = Child()
c.describe()
