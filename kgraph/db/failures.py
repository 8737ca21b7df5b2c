"""Turning what SQLite and SQLAlchemy raise into one-line kgraph errors.

SQLAlchemy's messages carry the SQL statement, its parameters and a documentation link over
many lines; a corrupt file can also surface as a UnicodeDecodeError from a text column.
A person gets one line saying what is wrong with which file and what to do; a hook gets the
same line in its log. Locked-database errors never come here: the retry handles them.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from typing import TypeVar

from kgraph.errors import ConnectionLostError, DatabaseError, InvalidValueError, KgraphError

T = TypeVar("T")

_CORRUPT = (
    "database disk image is malformed",
    "file is not a database",
    "malformed database schema",
    "database corruption",
)
_READ_ONLY = ("readonly database", "read-only database")
_SCHEMA = ("no such table", "no such column", "has no column named")
# What libpq and psycopg say when the server is gone or went away mid-transaction (a kill,
# a restart, a network drop); SQLAlchemy also flags these as ``connection_invalidated``.
_CONNECTION = (
    "server closed the connection",
    "terminating connection",
    "connection refused",
    "could not connect",
    "connection is closed",
    "connection already closed",
    "consuming input failed",
    "no connection to the server",
    "connection timed out",
    "connection reset",
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is in recovery mode",
)


def first_line(exc: BaseException) -> str:
    """The driver's message of ``exc`` (SQLAlchemy's wrapper unwrapped), first line only."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def corrupt_message(where: str, detail: str) -> str:
    return (
        f"database {where} is damaged ({detail}); "
        "check it with `kgraph doctor --full`, then restore a backup or move it aside"
    )


def read_only_message(where: str) -> str:
    return (
        f"database {where} is read-only: this command needs to write "
        "(read-only commands such as `knowledge list` still work)"
    )


def is_driver_error(exc: BaseException) -> bool:
    """A driver error (sqlite3, psycopg), raw or wrapped by SQLAlchemy (checked without
    importing SQLAlchemy or psycopg: the hooks must not pay for either)."""
    if isinstance(exc, sqlite3.Error):
        return True
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.Error):
        return True
    sa_exc = sys.modules.get("sqlalchemy.exc")
    return sa_exc is not None and isinstance(exc, sa_exc.DBAPIError)


def describe_failure(exc: BaseException, where: str) -> KgraphError | None:
    """The one-line KgraphError for a database failure, or None when ``exc`` is not one
    (a bug in kgraph: the caller lets it through)."""
    if isinstance(exc, KgraphError):
        return exc
    if isinstance(exc, UnicodeDecodeError):
        return DatabaseError(corrupt_message(where, "a text value is not valid UTF-8"))
    if isinstance(exc, OverflowError):
        return InvalidValueError(f"a number is out of range for the database: {exc}")
    orig = getattr(exc, "orig", None)
    if isinstance(orig, UnicodeDecodeError | OverflowError):
        return describe_failure(orig, where)
    if not is_driver_error(exc):
        return None
    message = first_line(exc)
    low = message.lower()
    if getattr(exc, "connection_invalidated", False) or any(m in low for m in _CONNECTION):
        return ConnectionLostError(f"database {where}: the server cannot be reached ({message})")
    if "could not decode to utf-8" in low:
        return DatabaseError(corrupt_message(where, "a text value is not valid UTF-8"))
    if any(marker in low for marker in _CORRUPT):
        return DatabaseError(corrupt_message(where, message))
    if any(marker in low for marker in _READ_ONLY):
        return DatabaseError(read_only_message(where))
    if "unable to open database file" in low:
        return DatabaseError(
            f"cannot open database {where}: the file or its folder cannot be read or written"
        )
    if any(marker in low for marker in _SCHEMA):
        return DatabaseError(
            f"database {where} does not have the layout this kgraph expects ({message}); "
            "it may come from a pre-release kgraph: move it aside and kgraph creates a new one"
        )
    if "disk is full" in low:
        return DatabaseError(f"cannot write database {where}: the disk is full")
    return DatabaseError(f"database {where}: {message}")


def run_translated(attempt: Callable[[], T], where: Callable[[], str]) -> T:
    """``attempt()`` retried on a lock (:func:`kgraph.db.retry.with_retry`); an error the
    database raised becomes its one-line :class:`KgraphError` naming ``where()`` (both
    database paths, SQLAlchemy's and the direct one, fail the same way)."""
    from kgraph.db.retry import with_retry

    try:
        return with_retry(attempt)
    except KgraphError:
        raise
    except Exception as exc:
        failure = describe_failure(exc, where())
        if failure is None:
            raise
        raise failure from exc
