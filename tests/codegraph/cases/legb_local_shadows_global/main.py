def work():
    return "module"


def caller():
    def work():
        return "local"

    return work()


def other():
    return work()


caller()
other()
