"""kgraph: persistent project memory and a code graph for AI coding agents.

The library is the product; the ``kgraph`` CLI and the MCP server are thin shells over it.
Start with :func:`kgraph.open` (see :mod:`kgraph.api`). The API names load on first use
(PEP 562): a hook that imports ``kgraph.hooks`` pays nothing for them.
"""

from typing import TYPE_CHECKING, Any

from kgraph.errors import (
    DatabaseBusyError,
    DatabaseError,
    InvalidValueError,
    KgraphError,
    NotFoundError,
    SchemaTooNewError,
)

if TYPE_CHECKING:
    from kgraph.api import Briefing, Project, RecallResult, SearchResult, open

__version__ = "0.1.0"

_API = frozenset({"Briefing", "Project", "RecallResult", "SearchResult", "open"})

__all__ = [
    "Briefing",
    "DatabaseBusyError",
    "DatabaseError",
    "InvalidValueError",
    "KgraphError",
    "NotFoundError",
    "Project",
    "RecallResult",
    "SchemaTooNewError",
    "SearchResult",
    "__version__",
    "open",
]


def __getattr__(name: str) -> Any:
    if name in _API:
        from kgraph import api

        return getattr(api, name)
    raise AttributeError(f"module 'kgraph' has no attribute {name!r}")
