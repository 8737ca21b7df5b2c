def helper():
    return 1


def editing():
    value = helper()
    result = value.
    return result


def fine():
    return helper()


fine()
