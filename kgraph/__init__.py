"""kgraph: persistent project memory and a code graph for AI coding agents.

The library is the product; the ``kgraph`` CLI is a thin shell over it.
"""

from kgraph.errors import (
    DatabaseBusyError,
    DatabaseError,
    InvalidValueError,
    KgraphError,
    NotFoundError,
    SchemaTooNewError,
)

__version__ = "0.1.0"

__all__ = [
    "DatabaseBusyError",
    "DatabaseError",
    "InvalidValueError",
    "KgraphError",
    "NotFoundError",
    "SchemaTooNewError",
    "__version__",
]
