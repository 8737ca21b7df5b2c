def h():
    return 2
