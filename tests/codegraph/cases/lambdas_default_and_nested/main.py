def helper():
    return 1


def run(callback=lambda: helper()):
    return callback()


adder = lambda x: lambda y: helper()
run()
adder(1)(2)
