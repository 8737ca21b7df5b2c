def first():
    return 1


def second():
    return 2


handler = first


def swap():
    global handler
    handler = second


def run():
    return handler()


run()
swap()
run()
