class Job:
    def run(self):
        self.prepare()
        return self.step()

    def later(self):
        step = lambda: self.step()  # noqa: E731
        return step()

    def prepare(self):
        return None

    def step(self):
        return "job"

    @classmethod
    def build(cls):
        return cls.default()

    @classmethod
    def default(cls):
        return "job"
