from collections.abc import Awaitable, Mapping


class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Deferred(Awaitable):
    def __await__(self):
        yield


class Settings(Mapping):
    def __getitem__(self, key):
        return 1

    def __iter__(self):
        yield "a"

    def __len__(self):
        return 1


def open_session(asynchronous):
    if asynchronous:
        return Deferred()
    return Session()


def run():
    # The value may be a Deferred too: Awaitable has no __enter__, so no edge goes there.
    with open_session(False):
        pass
    return Settings().keys()


run()
