def traced(fn):
    def wrapper(self):
        return fn(self)

    return wrapper


class Service:
    @traced
    def run(self):
        return self.step()

    def step(self):
        return 1


Service().run()
