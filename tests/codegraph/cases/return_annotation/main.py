class Conn:
    def close(self):
        return None


def connect() -> Conn:
    return _pool[0]


_pool = [Conn()]


def run():
    connect().close()


run()
