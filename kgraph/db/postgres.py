"""Everything PostgreSQL-specific on the SQLAlchemy side (kgraph.db.sqlite's counterpart).

- the project's schema (kgraph.db.project) is the connection's whole ``search_path``, set in
  the startup packet (no extra round trip), so every query of kgraph runs unchanged;
- a connect timeout (a server that does not answer must not hang a hook or a command) and a
  lock timeout (a writer waits at most as long as on SQLite's busy_timeout, then retries);
- write transactions take the project's advisory lock first: writers of one project run one
  at a time, as SQLite's ``BEGIN IMMEDIATE`` makes them, so a read-modify-write never loses
  another machine's update; other projects on the server are not blocked;
- serialization failures, deadlocks and lock timeouts are retried like "database is locked"
  (kgraph.db.retry).

psycopg (``pip install 'kgraph[postgres]'``) is imported by SQLAlchemy only when a
PostgreSQL URL is opened.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url

from kgraph.db.pgreader import LOCK_TIMEOUT_MS, lock_key
from kgraph.db.pgreader import WRITER_CONNECT_TIMEOUT_S as CONNECT_TIMEOUT_S
from kgraph.db.project import DEFAULT_PROJECT, schema_name, split_project
from kgraph.db.project import project_schema as project_schema


def engine_arguments(url: str) -> tuple[str, dict[str, Any], str]:
    """(URL for SQLAlchemy, create_engine keyword arguments, schema) for a PostgreSQL URL."""
    plain, project = split_project(url)
    for bare in ("postgresql://", "postgres://"):  # SQLAlchemy's default driver is psycopg2
        if plain.startswith(bare):
            plain = "postgresql+psycopg://" + plain[len(bare) :]
    schema = schema_name(project or DEFAULT_PROJECT)
    query = make_url(plain).query
    connect_args: dict[str, Any] = {}
    if "connect_timeout" not in query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    options = f"-c search_path={schema} -c lock_timeout={LOCK_TIMEOUT_MS}"
    if "options" in query:
        extra = query["options"]
        options = f"{extra if isinstance(extra, str) else ' '.join(extra)} {options}"
    connect_args["options"] = options
    return plain, {"connect_args": connect_args, "pool_pre_ping": False}, schema


def configure_postgres_engine(engine: Engine, schema: str, write_option: str) -> None:
    """A write transaction (execution option ``write_option``) starts by taking the
    project's advisory lock; it is released at commit or rollback."""
    key = lock_key(schema)

    @event.listens_for(engine, "connect")
    def _default_schema(_dbapi_connection: Any, _record: Any) -> None:
        # The dialect asked the server for current_schema(), which is NULL until the
        # migration creates the schema: kgraph's schema is the default one either way.
        engine.dialect.default_schema_name = schema

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(write_option):
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({key})")


@contextlib.contextmanager
def session_lock(
    engine: Engine, schema: str, name: str, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the server-wide lock ``name`` of the project (e.g. one graph parse at a time)
    on a connection of its own, for as long as the block runs; ``on_wait`` is called once
    when another session holds it. The server drops it if this process dies."""
    key = lock_key(f"{schema}/{name}")
    with engine.connect() as conn:
        conn.execute(text("SET lock_timeout = 0"))  # waiting for a long parse is the point
        conn.commit()
        if not conn.scalar(text(f"SELECT pg_try_advisory_lock({key})")):
            if on_wait is not None:
                on_wait()
            conn.execute(text(f"SELECT pg_advisory_lock({key})"))
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text(f"SELECT pg_advisory_unlock({key})"))
            conn.execute(text(f"SET lock_timeout = {LOCK_TIMEOUT_MS}"))
            conn.commit()


def fetch_binary(conn: Connection, statement: Any) -> list[tuple[Any, ...]]:
    """kgraph.db.sqlite.fetch_raw on PostgreSQL: the Core ``statement`` on a psycopg cursor
    that takes results in binary (bytea arrives as bytes, not hex text to decode: the
    vector scan reads ~1.5 KB an item), as plain tuples."""
    compiled = statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    raw = conn.connection.driver_connection
    assert raw is not None
    with raw.cursor(binary=True) as cursor:
        cursor.execute(str(compiled), compiled.construct_params())
        return list(cursor.fetchall())


def prepare_schema(conn: Connection, schema: str) -> None:
    """Inside the migration transaction: wait for any other process migrating this project,
    then create its schema if it is new."""
    conn.execute(text(f"SELECT pg_advisory_xact_lock({lock_key(schema)})"))
    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))


def is_missing_table_error(exc: BaseException) -> bool:
    """True for "relation ... does not exist" (SQLSTATE 42P01)."""
    orig = getattr(exc, "orig", exc)
    return getattr(orig, "sqlstate", None) == "42P01"


def display_url(url: str) -> str:
    """The URL as messages name it: password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@", 1)[-1]
