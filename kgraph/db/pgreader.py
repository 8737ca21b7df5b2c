"""The shared read model (kgraph.db.reader) on PostgreSQL: the same SQL, through psycopg.

The read model is written once, in SQLite's dialect of SQL with ``?`` placeholders, against
anything with ``execute(sql, params)`` returning a cursor. :class:`PgReadConnection` gives a
psycopg connection that shape: ``?`` becomes ``%s``; ``LIKE`` becomes ``ILIKE`` (SQLite's
LIKE ignores ASCII case); SQLite's ``+column`` (which keeps an index out of a plan) loses its
``+``; JSON columns come back as text, as SQLite returns them. Full-text search differs
more and is written out per dialect where it is used (kgraph.recall.items).

The hooks open one with :func:`open_pg_reader` straight through psycopg (no SQLAlchemy: the
hook budget), with a connect timeout, a read-only session and the project's schema as its
search path. The checkpoint commands write through the same wrapper (kgraph.db.direct), on
a session with the engine's settings (``connect_arguments(url, writer=True)``) that takes
the project's advisory lock (:func:`lock_key`) first, as the engine's writes do
(kgraph.db.postgres). psycopg is imported only here, only for a PostgreSQL URL.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from kgraph.db.location import without_password
from kgraph.db.project import project_schema, split_project
from kgraph.db.schema_version import check_revision

CONNECT_TIMEOUT_S = 3
# A hook's read waits at most this long on a statement (its own budget is a few seconds).
STATEMENT_TIMEOUT_MS = 3000
# A session that writes (the engine's, kgraph.db.postgres, and kgraph.db.direct's) waits
# longer to connect, and at most this long for a lock, as SQLite's busy_timeout; then the
# transaction is retried (kgraph.db.retry).
WRITER_CONNECT_TIMEOUT_S = 5
LOCK_TIMEOUT_MS = 5000
_PLUS = re.compile(r"(?<=[\s(])\+(?=[A-Za-z_])")
_translated: dict[str, str] = {}


def to_postgres(sql: str) -> str:
    """The read model's SQLite-flavoured SQL in PostgreSQL's (cached per statement)."""
    done = _translated.get(sql)
    if done is None:
        done = sql.replace("%", "%%").replace("?", "%s")
        done = _PLUS.sub("", done).replace(" LIKE ", " ILIKE ")
        if len(_translated) < 4096:
            _translated[sql] = done
    return done


class PgReadConnection:
    """A psycopg connection with the read model's interface (``execute`` -> cursor)."""

    dialect = "postgresql"

    def __init__(self, conn: Any, owned: bool = False) -> None:
        self._conn = conn
        self._owned = owned

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        from psycopg.types.string import TextLoader

        cursor = self._conn.cursor()
        cursor.adapters.register_loader("json", TextLoader)
        cursor.adapters.register_loader("jsonb", TextLoader)
        cursor.execute(to_postgres(sql), tuple(parameters))
        return cursor

    def close(self) -> None:
        if self._owned:
            self._conn.close()


def lock_key(schema: str) -> int:
    """The advisory lock id of a project (a signed 64-bit number): a write transaction
    takes it first, so the writers of one project run one at a time."""
    return int.from_bytes(hashlib.sha1(schema.encode()).digest()[:8], "big", signed=True)


def connect_arguments(url: str, *, writer: bool = False) -> dict[str, Any]:
    """psycopg.connect() keyword arguments for a kgraph PostgreSQL URL (its project's schema
    as the search path, a connect timeout unless the URL sets one). A reader's session is
    read-only with a statement timeout (a hook's budget); a ``writer``'s has the engine's
    lock timeout instead (kgraph.db.postgres)."""
    plain = split_project(url)[0]
    parts = urlsplit(plain)
    args: dict[str, Any] = {}
    if parts.username:
        args["user"] = unquote(parts.username)
    if parts.password:
        args["password"] = unquote(parts.password)
    if parts.hostname:
        args["host"] = parts.hostname
    if parts.port:
        args["port"] = parts.port
    database = unquote(parts.path.lstrip("/"))
    if database:
        args["dbname"] = database
    args.update(parse_qsl(parts.query))
    args.setdefault("connect_timeout", WRITER_CONNECT_TIMEOUT_S if writer else CONNECT_TIMEOUT_S)
    schema = project_schema(url)
    options = (
        f"-c search_path={schema} -c lock_timeout={LOCK_TIMEOUT_MS}"
        if writer
        else f"-c search_path={schema} -c statement_timeout={STATEMENT_TIMEOUT_MS} "
        "-c default_transaction_read_only=on"
    )
    args["options"] = f"{args['options']} {options}" if "options" in args else options
    return args


def open_pg_reader(url: str) -> PgReadConnection | None:
    """A read-only connection to the project on the server, or None when its schema is not
    this kgraph's yet (missing, or another revision: a command or the worker migrates).

    A server that cannot be reached raises a one-line DatabaseError (the hook logs it and
    fails open)."""
    import psycopg

    from kgraph.errors import DatabaseError

    try:
        conn = psycopg.connect(**connect_arguments(url), autocommit=True)
    except psycopg.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatabaseError(f"cannot reach the kgraph database server: {message}") from exc
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        usable = check_revision(without_password(url), None if row is None else str(row[0]))
    except psycopg.errors.UndefinedTable:
        conn.close()
        return None
    except BaseException:
        conn.close()
        raise
    if not usable:
        conn.close()
        return None
    return PgReadConnection(conn, owned=True)
