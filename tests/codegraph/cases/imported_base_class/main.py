from base import Base


class Job(Base):
    def go(self):
        return self.run()


Job().go()
