"""Opening a database: the one place that creates, upgrades and configures it.

``open_database()`` creates the file (and its folder) if missing, upgrades it if behind
(copying the file first), and returns a :class:`Database`. On an up-to-date database the
check is one ``SELECT`` and Alembic is never imported.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError as SADatabaseError
from sqlalchemy.exc import OperationalError

from kgraph.db import migrate, sqlite
from kgraph.db.location import resolve_database_url, sqlite_path
from kgraph.db.retry import with_retry
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.errors import DatabaseError

T = TypeVar("T")


@dataclass
class Database:
    """An open, up-to-date database. ``read``/``write`` run one short transaction each.

    Both pass a SQLAlchemy Core ``Connection``; use the models' tables
    (``Workflow.__table__``), never ORM instances (see kgraph/db/models/base.py).
    """

    url: str
    engine: Engine
    path: Path | None
    _write_engine: Engine = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._write_engine = self.engine.execution_options(**{sqlite.WRITE_OPTION: True})

    def write(self, operation: Callable[[Connection], T]) -> T:
        """Run ``operation(conn)`` in a write transaction, retried whole on a locked database.

        The transaction takes SQLite's write lock up front (BEGIN IMMEDIATE). Keep the
        operation short and free of slow work (no embedding, no parsing, no network).
        """

        def attempt() -> T:
            with self._write_engine.begin() as conn:
                return operation(conn)

        return with_retry(attempt)

    def read(self, operation: Callable[[Connection], T]) -> T:
        """Run ``operation(conn)`` in a read transaction (retried on a locked database)."""

        def attempt() -> T:
            with self.engine.begin() as conn:
                return operation(conn)

        return with_retry(attempt)

    def close(self) -> None:
        self.engine.dispose()


def make_engine(url: str) -> Engine:
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        sqlite.configure_sqlite_engine(engine)
    return engine


@contextlib.contextmanager
def file_lock(
    path: Path | None, suffix: str = ".lock", on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold an exclusive lock on ``<path><suffix>``: serialises work on one database file
    across processes. Blocks while another process holds it, calling ``on_wait`` first.
    A no-op without a file (or without ``fcntl``)."""
    if path is None:
        yield
        return
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking and the retry cover it
        yield
        return
    lock_path = path.with_name(path.name + suffix)
    with lock_path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def backup_before_upgrade(path: Path, revision: str) -> Path:
    """Copy the database next to itself before an upgrade; returns the copy's path."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    destination = path.with_name(f"{path.name}.bak-{revision}-{stamp}")
    try:
        sqlite.backup_file(path, destination)
    except Exception:
        shutil.copy2(path, destination)
    return destination


def _ensure_schema(engine: Engine, path: Path | None, had_content: bool) -> None:
    """Upgrade to head if needed; a file that held anything is copied first."""
    if migrate.current_revision(engine) == HEAD_REVISION:
        return
    with file_lock(path):  # first-time creation and upgrades, one process at a time
        revision = with_retry(lambda: migrate.current_revision(engine))
        if revision == HEAD_REVISION:
            return
        if path is not None and had_content:
            backup_before_upgrade(path, revision or "none")
        with_retry(lambda: migrate.upgrade_to_head(engine))


def open_database(url: str | None = None, cwd: Path | None = None) -> Database:
    """Open (creating and upgrading as needed) the database at ``url``.

    ``url`` defaults to :func:`kgraph.db.location.resolve_database_url`. Raises
    DatabaseError with a one-line message when the file cannot be used.
    """
    url = url or resolve_database_url(cwd=cwd)
    path = sqlite_path(url)
    if path is not None:
        if path.is_dir():
            raise DatabaseError(f"{path} is a directory, not a database file")
        if path.exists() and not sqlite.is_sqlite_file(path):
            raise DatabaseError(f"{path} is not a SQLite database")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(f"cannot create {path.parent}: {exc.strerror}") from exc
        if path.exists() and not os.access(path, os.R_OK):
            raise DatabaseError(f"cannot read {path}: permission denied")
    had_content = path is not None and path.exists() and path.stat().st_size > 0
    engine = make_engine(url)
    try:
        _ensure_schema(engine, path, had_content)
    except (OperationalError, SADatabaseError) as exc:
        engine.dispose()
        raise DatabaseError(f"cannot open database {path or url}: {exc.orig}") from exc
    except Exception:
        engine.dispose()
        raise
    return Database(url=url, engine=engine, path=path)
