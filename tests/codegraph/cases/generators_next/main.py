def first():
    return 1


def steps():
    yield first


class Ticker:
    def __iter__(self):
        return self

    def __next__(self):
        return first


generator = steps()
next(generator)()
ticker = iter(Ticker())
next(ticker)()
