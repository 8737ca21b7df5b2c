from .tools import tools
