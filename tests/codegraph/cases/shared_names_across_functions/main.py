# One name, used unbound from several functions (evaluated once for all of them), bound
# locally in some: each use must still see its own binding.
def helper():
    return 1


def other():
    return 2


class A:
    def first(self):
        return helper()

    def rebinds(self):
        helper = other
        return helper()

    def later(self):
        return helper()


class B:
    helper = other  # a class attribute: not visible from the methods' bodies

    def uses_module_name(self):
        return helper()


def outer():
    helper = other

    def inner():
        return helper()

    return inner()


def plain():
    return helper()


a = A()
a.first()
a.rebinds()
a.later()
B().uses_module_name()
outer()
plain()
