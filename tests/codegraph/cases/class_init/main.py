class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return self.format()

    def format(self):
        return "hi " + self.name


g = Greeter("x")
g.greet()
