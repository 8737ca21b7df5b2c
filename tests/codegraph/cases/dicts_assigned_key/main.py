def load():
    return "load"


def save():
    return "save"


handlers = {}
handlers["load"] = load
handlers["save"] = save
handlers["save"]()
