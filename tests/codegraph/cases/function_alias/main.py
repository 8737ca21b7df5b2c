def original():
    return 1


alias = original


def use():
    fn = alias
    return fn()


use()
