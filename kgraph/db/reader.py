"""Plain DB-API reads of a kgraph database, for processes that must not import SQLAlchemy.

The injecting hooks run on every session start, prompt and file read; importing SQLAlchemy
alone costs more than their budget (DESIGN: ~0.4 s vs 0.12 s). So the read model they share
with the library (:mod:`kgraph.knowledge.recall`, :mod:`kgraph.codegraph.filedeps`,
:mod:`kgraph.checkpoint.lookup`) is written against a ``sqlite3.Connection``: a hook opens
one here (:func:`open_reader`), library code passes the driver connection under its
SQLAlchemy transaction (:func:`raw_connection`). Both run the same SQL, so there is one
implementation of each query.

Only the standard library is imported here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from kgraph.db.schema_version import HEAD_REVISION

__all__ = [
    "CHUNK",
    "chunked",
    "marks",
    "open_reader",
    "parse_time",
    "raw_connection",
]

# Well under SQLite's default limit of 32,766 host parameters.
CHUNK = 900
# A reader waits this long for a lock (only a WAL recovery or an exclusive writer holds one).
BUSY_TIMEOUT_S = 0.5
T = TypeVar("T")


def open_reader(path: Path) -> sqlite3.Connection | None:
    """A read-only connection to the kgraph database at ``path``; None when there is nothing
    to read: no file, an empty one, not SQLite, or a schema other than this kgraph's (a
    hook never creates or migrates a database, that would import Alembic).

    Opened ``mode=rw`` with ``query_only``, not ``mode=ro``: a read-only handle cannot
    create the WAL index a reader of a WAL database needs when no one else has it open.
    """
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        with path.open("rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                return None
    except OSError:
        return None
    uri = f"file:{_uri_path(str(path))}?mode=rw"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        conn.execute("PRAGMA query_only = 1")
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        conn.close()
        return None
    if row is None or row[0] != HEAD_REVISION:
        conn.close()
        return None
    return conn


def _uri_path(path: str) -> str:
    """``path`` for a SQLite ``file:`` URI (``urllib.parse.quote`` would cost a hook ~3 ms
    of imports; only these characters mean something in the URI)."""
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def raw_connection(conn: Any) -> sqlite3.Connection:
    """The DB-API connection under a SQLAlchemy ``Connection`` (inside its transaction)."""
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver


def chunked(values: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def marks(count: int) -> str:
    """``?,?,?`` for ``count`` parameters."""
    return ",".join("?" * count)


def parse_time(value: Any) -> datetime | None:
    """A stored timestamp as an aware UTC datetime (SQLAlchemy writes naive UTC text)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
