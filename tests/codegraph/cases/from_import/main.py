from utils import helper, other as o


def run():
    helper()
    return o()


run()
