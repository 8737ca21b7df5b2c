def helper():
    return 1


def call_twice(fn):
    fn()
    return fn()


call_twice(helper)
call_twice(lambda: helper())
