def start():
    return "start"


def stop():
    return "stop"


def run(**handlers):
    return handlers["start"]()


run(start=start, stop=stop)
