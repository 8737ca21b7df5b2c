from pkg import mod


def run():
    return mod.f()


run()
