from engine import Engine


class Car:
    def __init__(self):
        self.engine = Engine()
