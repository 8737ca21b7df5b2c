def parse():
    return "parse"


def render():
    return "render"


def routes():
    return {"api": {"parse": parse}, "web": {"render": render}}


routes()["web"]["render"]()
