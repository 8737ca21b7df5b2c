class Worker:
    def step(self):
        return 1

    def run(self):
        def inner():
            return self.step()

        return inner()


Worker().run()
