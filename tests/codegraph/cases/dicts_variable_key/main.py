def add():
    return "add"


def remove():
    return "remove"


HANDLERS = {"add": add, "remove": remove}


def dispatch(name):
    return HANDLERS[name]()


dispatch("add")
dispatch("remove")
