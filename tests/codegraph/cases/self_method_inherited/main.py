class Base:
    def helper(self):
        return 1


class Child(Base):
    def run(self):
        return self.helper()


Child().run()
