import pkg.sub.mod


def run():
    return pkg.sub.mod.f()


run()
