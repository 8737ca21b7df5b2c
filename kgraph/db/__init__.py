"""Database layer: location, engine with SQLite settings, typed models, migrations, retries.

Public entry point: :func:`kgraph.db.open_database`.
"""

from kgraph.db.core import Database, open_database
from kgraph.db.location import resolve_database_url

__all__ = ["Database", "open_database", "resolve_database_url"]
