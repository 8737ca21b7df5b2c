def add():
    return "add"


def remove():
    return "remove"


actions = {"add": add, "remove": remove}
actions["add"]()
