class Wheel:
    def spin(self):
        return 1


class Axle:
    def __init__(self):
        self.wheel = Wheel()


class Cart:
    def __init__(self):
        self.axle = Axle()

    def roll(self):
        return self.axle.wheel.spin()


Cart().roll()
