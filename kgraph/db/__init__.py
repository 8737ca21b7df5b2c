"""Database layer: location, engine with SQLite settings, typed models, migrations, retries.

Public entry point: :func:`kgraph.db.open_database`.

``Database`` and ``open_database`` are imported on first use (PEP 562), so importing
``kgraph.db.location`` costs no SQLAlchemy import: the capture hooks, which must return in
well under 0.3 s, only need the location of the project.
"""

from typing import TYPE_CHECKING, Any

from kgraph.db.location import project_root, resolve_database_url, sqlite_path
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.db.watch import DataWatch

if TYPE_CHECKING:
    from kgraph.db.core import Database, open_database

__all__ = [
    "HEAD_REVISION",
    "DataWatch",
    "Database",
    "open_database",
    "project_root",
    "resolve_database_url",
    "sqlite_path",
]


def __getattr__(name: str) -> Any:
    if name in ("Database", "open_database"):
        from kgraph.db import core

        return getattr(core, name)
    raise AttributeError(f"module 'kgraph.db' has no attribute {name!r}")
