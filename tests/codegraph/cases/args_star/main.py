def first():
    return 1


def second():
    return 2


def run_all(*callbacks):
    return [callback() for callback in callbacks]


run_all(first, second)
