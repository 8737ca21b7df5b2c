"""Everything SQLite-specific lives here, so another engine can be added beside it.

- per-connection PRAGMAs: WAL, busy_timeout, foreign_keys, synchronous=NORMAL;
- SQLAlchemy's documented recipe for real transactions with pysqlite (``isolation_level =
  None`` on connect, our own ``BEGIN`` on the ``begin`` event), so DDL in migrations is atomic
  and writes can take the lock up front with ``BEGIN IMMEDIATE``;
- a consistent file copy through the SQLite backup API (safe with WAL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from sqlalchemy.engine import Connection, Engine

BUSY_TIMEOUT_MS = 5000

# Execution option that makes a transaction start with BEGIN IMMEDIATE: the write lock is
# taken at the start, so a writer waits on busy_timeout instead of failing mid-transaction
# on a read-to-write upgrade (which SQLite cannot wait for).
WRITE_OPTION = "kgraph_write"


def configure_sqlite_engine(engine: Engine, read_only: bool = False) -> None:
    """Install the connect/begin listeners on a SQLite engine (``read_only``: leave the
    journal mode alone, switching it is a write)."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        prepare_connection(dbapi_connection, read_only)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(WRITE_OPTION):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def prepare_connection(dbapi_connection: sqlite3.Connection, read_only: bool = False) -> None:
    """The settings of every connection kgraph opens to write or read a database file, the
    engine's and kgraph.db.direct's alike: transactions are begun explicitly (``isolation_level
    = None``), a lock is waited for, WAL, foreign keys on."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def set_foreign_keys(conn: Connection, enabled: bool) -> None:
    """Switch foreign keys on the raw connection; a no-op inside a transaction, so call first."""
    raw = conn.connection.driver_connection
    assert raw is not None
    raw.execute(f"PRAGMA foreign_keys = {'ON' if enabled else 'OFF'}")


def is_locked_error(exc: BaseException) -> bool:
    """True when ``exc`` (or what it wraps) is SQLite's "database is locked/busy"."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        message = str(current).lower()
        if "database is locked" in message or "database is busy" in message:
            return True
        if isinstance(current, sqlite3.OperationalError) and "locked" in message:
            return True
        current = getattr(current, "orig", None) or current.__cause__
    return False


def backup_file(source: Path, destination: Path) -> None:
    """Copy a live SQLite database consistently (WAL contents included)."""
    src = sqlite3.connect(str(source))
    try:
        dst = sqlite3.connect(str(destination))
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def is_sqlite_file(path: Path) -> bool:
    """True when ``path`` is empty or starts with the SQLite header."""
    with path.open("rb") as handle:
        head = handle.read(16)
    return head == b"" or head == b"SQLite format 3\x00"


def change_token(conn: Connection) -> tuple[Any, int, int]:
    """A value that changes whenever the database may have changed, for in-process caches.

    ``PRAGMA data_version`` moves when another connection commits; ``total_changes`` moves
    when this connection writes. Both are per connection, so the token holds the DBAPI
    connection itself (compared by identity; holding it also stops a new connection from
    reusing its address): an equal token means nothing was written since it was taken.
    """
    raw = conn.connection.driver_connection
    assert raw is not None
    version = raw.execute("PRAGMA data_version").fetchone()[0]
    return raw, int(version), int(raw.total_changes)


def fetch_raw(conn: Connection, statement: Any) -> list[tuple[Any, ...]]:
    """Run a Core ``statement`` on the DBAPI cursor and return plain tuples.

    Skips SQLAlchemy's row objects and result processors (~2x faster for bulk reads of
    10k+ rows such as the vector scan); use only for columns whose raw driver values are
    what the caller wants (text, numbers, bytes). PostgreSQL: kgraph.db.postgres.fetch_binary.
    """
    if conn.dialect.name != "sqlite":
        from kgraph.db.postgres import fetch_binary

        return fetch_binary(conn, statement)
    compiled = statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    params = compiled.construct_params()
    positional = tuple(params[name] for name in (compiled.positiontup or ()))
    return fetch_raw_sql(conn, str(compiled), positional)


def fetch_raw_sql(conn: Connection, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run ``sql`` (``?`` placeholders) on the transaction's DBAPI connection; plain tuples.
    On PostgreSQL the SQL is translated as the read model's is (kgraph.db.pgreader)."""
    if conn.dialect.name != "sqlite":
        from kgraph.db.reader import raw_connection

        return [tuple(row) for row in raw_connection(conn).execute(sql, tuple(params))]
    raw = conn.connection.driver_connection
    assert raw is not None
    return list(raw.execute(sql, tuple(params)).fetchall())


# Parameters a statement of fetch_raw_in: well under SQLite's 32,766 host parameters.
BIG_CHUNK = 5000


def fetch_raw_in(
    conn: Connection, sql: str, values: Iterable[Any], size: int = BIG_CHUNK
) -> list[tuple[Any, ...]]:
    """:func:`fetch_raw_sql` of ``sql``, whose one ``{}`` is a list of ``?``, for the
    distinct ``values`` (sorted), ``size`` at a time."""
    from kgraph.db.reader import chunked, marks

    rows: list[tuple[Any, ...]] = []
    for chunk in chunked(sorted(set(values)), size):
        rows += fetch_raw_sql(conn, sql.format(marks(len(chunk))), chunk)
    return rows


def use_mmap(conn: Connection, size: int) -> None:
    """Let this connection read up to ``size`` bytes of the file through mmap.

    Big sequential scans (the vector scan reads ~1.5 KB per item) run ~1.5x faster than
    through read() calls into the small page cache. The setting stays with the pooled
    connection, which only helps its later reads.
    """
    raw = conn.connection.driver_connection
    assert raw is not None
    raw.execute(f"PRAGMA mmap_size = {int(size)}")
