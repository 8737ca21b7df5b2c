class Lock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Log:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self):
        return self.name


with Lock(), Log("x") as log:
    log.write()
