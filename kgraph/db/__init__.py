"""Database layer: location, engine with SQLite settings, typed models, migrations, retries.

Public entry point: :func:`kgraph.db.open_database`; callers outside the package use the
names in ``__all__``.

``Database``, ``open_database`` and the rest load on first use (PEP 562), so importing
``kgraph.db`` costs no SQLAlchemy import: the capture hooks, which must return in well
under 0.3 s, only need the location of the project. ``open_direct`` opens an up-to-date
database on its driver alone (``DirectDatabase``), for the checkpoint commands; code
written against ``Transactions`` runs on it and on ``Database`` alike.
"""

from typing import TYPE_CHECKING

from kgraph.db.failures import describe_failure
from kgraph.db.location import (
    is_server_url,
    project_root,
    resolve_database_url,
    sqlite_path,
    without_password,
)
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.db.core import Database, open_database
    from kgraph.db.direct import DirectDatabase, Transactions, open_direct
    from kgraph.db.reader import isoformat, raw_connection
    from kgraph.db.watch import DataWatch

_LAZY = {
    "Database": "core",
    "open_database": "core",
    "DirectDatabase": "direct",
    "Transactions": "direct",
    "open_direct": "direct",
    "isoformat": "reader",
    "raw_connection": "reader",
    "DataWatch": "watch",
}

__all__ = [
    "HEAD_REVISION",
    "DataWatch",
    "Database",
    "DirectDatabase",
    "Transactions",
    "describe_failure",
    "is_server_url",
    "isoformat",
    "open_database",
    "open_direct",
    "project_root",
    "raw_connection",
    "resolve_database_url",
    "sqlite_path",
    "without_password",
]


__getattr__ = lazy(__name__, _LAZY)
