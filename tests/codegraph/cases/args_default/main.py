def fallback():
    return 0


def never_called():
    return -1


def chosen():
    return 1


def run(callback=fallback):
    return callback()


def run_passed(callback=never_called):
    return callback()


run()
run_passed(chosen)
