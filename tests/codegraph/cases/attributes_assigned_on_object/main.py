def greet():
    return "hello"


class Plain:
    pass


obj = Plain()
obj.action = greet
obj.action()
