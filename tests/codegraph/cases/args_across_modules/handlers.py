def on_success():
    return "ok"


def on_error():
    return "error"
