class Model:
    def __init__(self):
        self.saved = False

    def save(self):
        self.saved = True
        return self.saved
