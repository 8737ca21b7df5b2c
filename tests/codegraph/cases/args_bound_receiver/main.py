class Store:
    @classmethod
    def open(cls):
        return cls()

    def me(self):
        return self

    def save(self):
        return "store"


class Disk(Store):
    def save(self):
        return "disk"


def persist(handler):
    return handler()


def by_class():
    return persist(Disk.open).save()


def by_instance():
    disk = Disk()
    return persist(disk.me).save()


by_class()
by_instance()
