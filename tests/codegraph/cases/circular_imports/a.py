import b


def ping(n):
    if n:
        return b.pong(n - 1)
    return 0
