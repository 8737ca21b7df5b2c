from ..util import u
from .. import util


def run():
    u()
    return util.v()
