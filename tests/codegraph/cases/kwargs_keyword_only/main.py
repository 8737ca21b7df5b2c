def start():
    return "start"


def stop():
    return "stop"


def run(*, on_start, on_stop):
    on_start()
    on_stop()


run(on_stop=stop, on_start=start)
