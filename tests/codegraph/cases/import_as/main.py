import utils as u


def run():
    return u.helper()


run()
