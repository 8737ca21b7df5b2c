class Client:
    def __init__(self, base):
        self.base = base

    def get(self, path):
        return self.base + path


class Cache:
    def get(self, key):
        return key
