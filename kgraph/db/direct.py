"""Transactions straight on the DB-API driver: ``sqlite3``, or psycopg on a server.

A skill runs the checkpoint commands (``kgraph workflow log-action``, ``set-phase``,
``find``) many times a session, each to append a row or read a few; importing SQLAlchemy
and the models would cost each process ten times that work. :func:`open_direct` opens an
up-to-date database with the driver alone, and :class:`DirectDatabase` runs an operation on
the DB-API connection in one transaction, as :class:`kgraph.db.Database` runs one under
SQLAlchemy: the same connection settings (kgraph.db.sqlite), ``BEGIN IMMEDIATE`` for a
write (the project's advisory lock on PostgreSQL), the same retry on a lock
(kgraph.db.retry) and the same one-line errors (kgraph.db.failures). Code written against
:class:`Transactions` (kgraph.checkpoint) runs on either, so each query is written once.

Creating and migrating a schema stay with SQLAlchemy and Alembic: :func:`open_direct`
returns None for anything but a database at this kgraph's revision that this process can
write (missing, empty, older or newer, read-only, not SQLite, a server that does not
answer), and the caller opens it with kgraph.db.open_database, which creates, migrates or
says in one line what is wrong. Standard library only (psycopg for a server URL).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from kgraph.db.failures import run_translated
from kgraph.db.location import is_server_url, project_root, sqlite_file
from kgraph.db.reader import ReadConnection, _uri_path
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.db.sqlite import BUSY_TIMEOUT_MS, prepare_connection

__all__ = ["DirectDatabase", "Transactions", "open_direct"]

T = TypeVar("T")
_SQLITE_HEADER = b"SQLite format 3\x00"


class Transactions(Protocol):
    """What code that runs on either database takes: :class:`kgraph.db.Database` (under
    SQLAlchemy) or :class:`DirectDatabase`. Each call is one transaction, retried whole on
    a lock; the operation gets the DB-API connection (``?`` placeholders on both)."""

    def read_raw(self, operation: Callable[[ReadConnection], T]) -> T: ...

    def write_raw(self, operation: Callable[[ReadConnection], T]) -> T: ...


class DirectDatabase:
    """An open, up-to-date database on its driver's connection (see the module docstring)."""

    def __init__(self, url: str, conn: Any, dialect: str, lock: int | None = None) -> None:
        self.url = url
        self.dialect = dialect
        self._conn = conn
        self._lock = lock

    @property
    def where(self) -> str:
        """The database as messages name it: its path, or its URL without the password
        (as kgraph.db.Database's; only an error asks for it, so only then is the URL's
        renderer imported)."""
        path = sqlite_file(self.url)
        if path is not None:
            return path
        from kgraph.db.postgres import display_url

        return display_url(self.url)

    def read_raw(self, operation: Callable[[ReadConnection], T]) -> T:
        """Run ``operation(conn)`` in a read transaction: one snapshot throughout."""
        if self.dialect == "sqlite":
            return self._run(("BEGIN",), operation)
        return self._run(("BEGIN ISOLATION LEVEL REPEATABLE READ",), operation)

    def write_raw(self, operation: Callable[[ReadConnection], T]) -> T:
        """Run ``operation(conn)`` in a write transaction, the write lock taken up front
        (writers of one database run one at a time), retried whole on a lock."""
        if self.dialect == "sqlite":
            return self._run(("BEGIN IMMEDIATE",), operation)
        return self._run(("BEGIN", f"SELECT pg_advisory_xact_lock({self._lock})"), operation)

    def _run(self, begin: tuple[str, ...], operation: Callable[[ReadConnection], T]) -> T:
        def attempt() -> T:
            try:
                for statement in begin:
                    self._conn.execute(statement)
                result = operation(self._conn)
                self._conn.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
            return result

        return run_translated(attempt, lambda: self.where)

    def _rollback(self) -> None:
        # No transaction may have begun (BEGIN met a lock), or the server may be gone.
        with contextlib.suppress(Exception):
            self._conn.execute("ROLLBACK")

    def close(self) -> None:
        self._conn.close()


def open_direct(url: str) -> DirectDatabase | None:
    """The database at ``url`` on its driver alone, or None when kgraph.db.open_database
    must open it (see the module docstring)."""
    if is_server_url(url):
        from kgraph.db.project import with_project

        return _open_server(with_project(url, project_root(), os.environ))
    path = sqlite_file(url)
    return None if path is None else _open_file(url, path)


def _open_file(url: str, path: str) -> DirectDatabase | None:
    """A read-write connection to an up-to-date SQLite file (``mode=rw``: never creates
    one), else None. Paths as strings: pathlib costs a checkpoint command ~4 ms."""
    try:
        if not (os.path.isfile(path) and os.access(path, os.R_OK | os.W_OK)):
            return None
        if not os.access(os.path.dirname(path) or ".", os.W_OK | os.X_OK):
            return None
        with open(path, "rb") as handle:
            if handle.read(16) != _SQLITE_HEADER:
                return None
    except OSError:
        return None
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(
            f"file:{_uri_path(path)}?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        )
        prepare_connection(conn)
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        if conn is not None:
            conn.close()
        return None
    if row is None or row[0] != HEAD_REVISION:
        conn.close()
        return None
    return DirectDatabase(url, conn, "sqlite")


def _open_server(url: str) -> DirectDatabase | None:
    """A read-write session on the project's schema when it is at this revision, else
    None (as for a server that does not answer: the engine's path says so in one line)."""
    import psycopg

    from kgraph.db.pgreader import PgReadConnection, connect_arguments, lock_key
    from kgraph.db.project import project_schema

    try:
        raw = psycopg.connect(**connect_arguments(url, writer=True), autocommit=True)
    except psycopg.Error:
        return None
    try:
        row = raw.execute("SELECT version_num FROM alembic_version").fetchone()
    except psycopg.Error:
        raw.close()
        return None
    if row is None or row[0] != HEAD_REVISION:
        raw.close()
        return None
    conn = PgReadConnection(raw, owned=True)
    return DirectDatabase(url, conn, "postgresql", lock_key(project_schema(url)))
