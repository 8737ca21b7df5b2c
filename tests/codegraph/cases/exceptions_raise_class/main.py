class NotFound(Exception):
    def __init__(self):
        super().__init__("not found")


def find():
    raise NotFound


try:
    find()
except NotFound:
    pass
