"""Plain DB-API reads of a kgraph database, for processes that must not import SQLAlchemy.

The injecting hooks run on every session start, prompt and file read; importing SQLAlchemy
alone costs more than their budget (DESIGN: ~0.4 s vs 0.12 s). So the read model they share
with the library (:mod:`kgraph.recall.items`, :mod:`kgraph.codegraph.filedeps`,
:mod:`kgraph.checkpoint.lookup`) is written against a ``sqlite3.Connection``: a hook opens
one here (:func:`open_reader`), library code passes the driver connection under its
SQLAlchemy transaction (:func:`raw_connection`). Both run the same SQL, so there is one
implementation of each query.

On PostgreSQL the same SQL runs through a psycopg connection wrapped to look the same
(kgraph.db.pgreader); :data:`ReadConnection` is what the read model accepts.

Only the standard library is imported here.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kgraph.db.schema_version import check_revision

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CHUNK",
    "ReadConnection",
    "ReadCursor",
    "chunked",
    "db_time",
    "is_postgres",
    "isoformat",
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


class ReadCursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class ReadConnection(Protocol):
    """What the read model runs its SQL on: a ``sqlite3.Connection``, or a psycopg one
    wrapped by kgraph.db.pgreader (``?`` placeholders either way)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> ReadCursor: ...

    def close(self) -> None: ...


def is_postgres(conn: ReadConnection) -> bool:
    """True when ``conn`` reads a PostgreSQL server (full-text search differs)."""
    return getattr(conn, "dialect", None) == "postgresql"


def open_reader(path: Path) -> sqlite3.Connection | None:
    """A read-only connection to the kgraph database at ``path``; None when there is nothing
    to read yet: no file, an empty one, no version table, or a schema other than this
    kgraph's (a hook never creates or migrates a database, that would import Alembic).

    A file that cannot be used raises a one-line DatabaseError (kgraph.db.failures): not
    SQLite, damaged, unreadable. The hook runner logs it and tells the user once per
    session, instead of a briefing that is silently empty.

    Opened ``mode=rw`` with ``query_only``, not ``mode=ro``: a read-only handle cannot
    create the WAL index a reader of a WAL database needs when no one else has it open. A
    file this user cannot write opens ``mode=ro`` (SQLite creates the index beside it), and
    in a folder this user cannot write ``immutable=1`` (nobody can write it there either).
    """
    from kgraph.errors import DatabaseError

    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        with path.open("rb") as handle:
            head = handle.read(16)
    except PermissionError as exc:
        raise DatabaseError(f"cannot read database {path}: permission denied") from exc
    except OSError:
        return None
    if head != b"SQLite format 3\x00":
        raise DatabaseError(f"{path} is not a SQLite database (or its first page is damaged)")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        mode = "immutable=1"
    elif not os.access(path, os.W_OK):
        mode = "mode=ro"
    else:
        mode = "mode=rw"
    uri = f"file:{_uri_path(str(path))}?{mode}"
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        if "no such table" in str(exc).lower():
            return None
        from kgraph.db.failures import describe_failure

        raise describe_failure(exc, str(path)) or exc from exc
    try:
        usable = check_revision(str(path), None if row is None else str(row[0]))
    except BaseException:
        conn.close()
        raise
    if not usable:
        conn.close()
        return None
    return conn


def _uri_path(path: str) -> str:
    """``path`` for a SQLite ``file:`` URI (``urllib.parse.quote`` would cost a hook ~3 ms
    of imports; only these characters mean something in the URI)."""
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def raw_connection(conn: Any) -> ReadConnection:
    """The DB-API connection under a SQLAlchemy ``Connection`` (inside its transaction), as
    the read model takes it."""
    driver = conn.connection.driver_connection
    if isinstance(driver, sqlite3.Connection):
        return driver
    from kgraph.db.pgreader import PgReadConnection

    return PgReadConnection(driver)


def chunked(values: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def marks(count: int) -> str:
    """``?,?,?`` for ``count`` parameters."""
    return ",".join("?" * count)


def db_time(value: datetime) -> str:
    """An aware time as SQLAlchemy stores it: naive UTC text with microseconds, which SQLite
    orders as text and PostgreSQL casts to its ``timestamp``."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


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


def isoformat(value: datetime | None) -> str | None:
    """RFC 3339 text with a ``Z`` suffix, as every --json output writes times."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
