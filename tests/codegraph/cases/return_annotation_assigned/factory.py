class Engine:
    def start(self):
        return True


class Car:
    def engine(self) -> Engine:
        return _ENGINES[0]


def build() -> Car:
    return _CARS[0]


_ENGINES = [Engine()]
_CARS = [Car()]
