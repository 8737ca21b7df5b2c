class Connection:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def query(self):
        return 1


def connect():
    return Connection()


def run():
    with connect() as conn:
        return conn.query()


run()
