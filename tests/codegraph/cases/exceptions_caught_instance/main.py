class AppError(Exception):
    def describe(self):
        return "app error"


class OtherError(Exception):
    def describe(self):
        return "other"


def fail():
    raise AppError()


try:
    fail()
except (AppError, KeyError) as error:
    error.describe()
