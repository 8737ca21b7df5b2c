from .impl import helper
