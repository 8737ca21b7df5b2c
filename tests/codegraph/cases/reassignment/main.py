class A:
    def run(self):
        return "a"


class B:
    def run(self):
        return "b"


def flow():
    x = A()
    first = x.run()
    x = B()
    second = x.run()
    return first + second


flow()
