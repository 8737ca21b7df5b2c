class Session:
    def query(self):
        return 1


class Manager:
    def __enter__(self):
        return Session()

    def __exit__(self, *exc):
        return False


def run():
    with Manager() as session:
        return session.query()


run()
