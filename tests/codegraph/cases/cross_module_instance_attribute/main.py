from car import Car


def drive(car: Car):
    return car.engine.start()


drive(Car())
