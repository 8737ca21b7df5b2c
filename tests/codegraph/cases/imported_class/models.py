class User:
    def __init__(self, name):
        self.name = name

    def save(self):
        return self.validate()

    def validate(self):
        return bool(self.name)
