def on_change():
    return "changed"


class Field:
    def __init__(self, callback):
        self.callback = callback

    def set(self, value):
        self.value = value
        self.callback()


Field(on_change).set(1)
