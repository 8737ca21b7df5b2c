# self.m() is evaluated once per class, unless the method rebinds self.
class Engine:
    def start(self):
        return 1


class Other:
    def start(self):
        return 2


class Car:
    def __init__(self):
        self.engine = Engine()

    def drive(self):
        return self.engine.start()

    def park(self):
        return self.engine.start()

    def swapped(self):
        self = Other()
        return self.start()

    @classmethod
    def build(cls):
        return cls()


class Boat:
    def __init__(self):
        self.engine = Other()

    def drive(self):
        return self.engine.start()


car = Car.build()
car.drive()
car.park()
car.swapped()
Boat().drive()
