class Factory:
    def __init__(self, value):
        self.value = value

    @classmethod
    def create(cls):
        return cls(cls.default())

    @staticmethod
    def default():
        return 42

    def double(self):
        return Factory.default() * 2


f = Factory.create()
f.double()
