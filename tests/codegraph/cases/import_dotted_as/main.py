import pkg.sub.mod as m


def run():
    return m.f()


run()
