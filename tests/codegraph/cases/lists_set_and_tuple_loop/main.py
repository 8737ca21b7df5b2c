def first():
    return 1


def second():
    return 2


for fn in {first}:
    fn()
for index, fn in enumerate((second,)):
    fn()
