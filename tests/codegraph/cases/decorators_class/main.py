MODELS = []


def model(cls):
    MODELS.append(cls)
    return cls


@model
class User:
    def __init__(self):
        self.name = "user"


User()
