class A:
    def hello(self):
        return "A"

    def who(self):
        return "A"


class B(A):
    def hello(self):
        return "B" + super().hello()


class C(A):
    def hello(self):
        return "C" + super().hello()

    def who(self):
        return "C"


class D(B, C):
    pass


d = D()
d.hello()
d.who()
