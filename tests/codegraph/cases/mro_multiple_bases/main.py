class Loader:
    def load(self):
        return "loaded"


class Saver:
    def save(self):
        return "saved"

    def load(self):
        return "never"


class Store(Loader, Saver):
    def sync(self):
        self.load()
        return self.save()


Store().sync()
