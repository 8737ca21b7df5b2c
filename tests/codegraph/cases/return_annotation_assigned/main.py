from factory import build


def drive():
    car = build()
    engine = car.engine()
    engine.start()


drive()
