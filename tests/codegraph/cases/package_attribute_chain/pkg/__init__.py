from . import mod
