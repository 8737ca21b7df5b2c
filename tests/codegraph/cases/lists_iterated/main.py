def first():
    return 1


def second():
    return 2


def run(steps):
    for step in steps:
        step()


for callback in [first, second]:
    callback()
run((first,))
