def first():
    return 1


def second():
    return 2


grid = [[first], [second]]
grid[1][0]()
