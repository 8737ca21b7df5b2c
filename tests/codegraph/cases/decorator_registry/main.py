registry = []


def register(fn):
    registry.append(fn)
    return fn


@register
def task():
    return 1


def run():
    return task()


run()
