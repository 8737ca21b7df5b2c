from base import Job


class Fast(Job):
    def step(self):
        return "fast"

    @classmethod
    def default(cls):
        return "fast"


class Faster(Fast):
    def step(self):
        return "faster" + super().step()


class Plain(Job):
    pass


class Other:
    def step(self):
        return "other"

    def run(self):
        return self.step()


Job().run()
Fast().run()
Faster().run()
Plain().run()
Other().run()
Job.build()
Fast.build()
Job().later()
Fast().later()
Faster().later()
