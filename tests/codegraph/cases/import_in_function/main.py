def run():
    import utils
    from utils import other

    utils.helper()
    return other()


run()
