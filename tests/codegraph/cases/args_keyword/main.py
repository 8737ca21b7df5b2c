def on_done():
    return "done"


def run(value, callback=None):
    if callback is not None:
        return callback()
    return value


run(1)
run(2, callback=on_done)
