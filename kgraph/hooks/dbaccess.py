"""Database access under a hook's budget: open only what is ready, write with a time limit.

A synchronous hook never creates or migrates a database (that would import Alembic, ~0.8 s):
a missing or outdated database is left to the capture worker or any CLI command. Writes run
in a helper thread joined with a timeout, so a database locked by a long transaction
elsewhere cannot hold Claude Code up; the caller then queues the write for the worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from kgraph.db.location import sqlite_path

if TYPE_CHECKING:
    from kgraph.db import Database

T = TypeVar("T")


def database_ready(url: str) -> bool:
    """False when the database file does not exist yet (or is empty): nothing to read."""
    path = sqlite_path(url)
    if path is None:
        return True
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def open_ready_database(url: str) -> Database | None:
    """The database at ``url`` when it exists and is at the current schema, else None.

    Never creates, migrates or imports Alembic. A database that cannot be used (not SQLite,
    damaged, unreadable) raises a one-line KgraphError: the hook runner logs it and tells
    the user once per session. A read-only database opens read-only.
    """
    if not database_ready(url):
        return None
    from kgraph.db import Database, migrate
    from kgraph.db.core import check_database_path, make_engine
    from kgraph.db.failures import describe_failure

    path = sqlite_path(url)
    mode = check_database_path(path) if path is not None else None
    engine = make_engine(url, read_only=mode)
    where = str(path) if path is not None else url
    try:
        if not migrate.is_up_to_date(engine):
            engine.dispose()
            return None
    except BaseException as exc:
        engine.dispose()
        failure = describe_failure(exc, where) if isinstance(exc, Exception) else None
        if failure is None or failure is exc:
            raise
        raise failure from exc
    return Database(url=url, engine=engine, path=path, read_only=mode is not None)


def call_with_timeout(operation: Callable[[], T], timeout: float) -> tuple[bool, T | None]:
    """Run ``operation`` in a daemon thread: (True, result) when it finished within ``timeout``
    seconds, (False, None) when it did not (the thread is abandoned; the process exits without
    it). An exception raised by ``operation`` in time is re-raised here."""
    box: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            box.append(operation())
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target, name="kgraph-hook-write", daemon=True)
    thread.start()
    thread.join(max(0.0, timeout))
    if thread.is_alive():
        return False, None
    if errors:
        raise errors[0]
    return True, box[0]
