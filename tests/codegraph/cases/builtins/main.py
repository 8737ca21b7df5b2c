def count(items):
    return len(items)


def show(items):
    print(sorted(items))
    return isinstance(items, list)


data = list(range(3))
count(data)
show(data)
