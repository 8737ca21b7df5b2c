import utils


def run():
    return utils.helper()


run()
utils.other()
