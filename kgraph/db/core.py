"""Opening a database: the one place that creates, upgrades and configures it.

``open_database()`` checks the path first (a mistyped ``--db`` must not silently create a new
empty database), creates the file if missing, upgrades it if behind (copying the file first,
once per revision), and returns a :class:`Database`. On an up-to-date database the check is
one ``SELECT`` and Alembic is never imported.

- Only a project's own ``.claude/`` folder is created; any other missing folder is an error.
- A database the process cannot write (file or folder) opens read-only: reads work, a write
  is a one-line error. It is never migrated or copied.
- A database that is not kgraph's, is newer than this kgraph, or is damaged is refused
  with one line, before anything is copied: failing commands never pile up backups.
- Every failure inside ``read``/``write`` is one line too (kgraph.db.failures).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine

from kgraph.db import migrate, postgres, sqlite
from kgraph.db.failures import (
    describe_failure,
    first_line,
    read_only_message,
    run_translated,
)
from kgraph.db.location import (
    DEFAULT_FOLDER,
    DEFAULT_NAME,
    is_server_url,
    project_root,
    resolve_database_url,
    sqlite_path,
)
from kgraph.db.locks import Holder, held_lock
from kgraph.db.postgres import display_url
from kgraph.db.reader import ReadConnection, raw_connection
from kgraph.db.retry import with_retry
from kgraph.db.schema_version import (
    CORE_TABLES,
    HEAD_REVISION,
    check_revision,
)
from kgraph.errors import DatabaseError, InvalidValueError, KgraphError

T = TypeVar("T")


@dataclass
class Database:
    """An open, up-to-date database. ``read``/``write`` run one short transaction each.

    Both pass a SQLAlchemy Core ``Connection``; use the models' tables
    (``Workflow.__table__``), never ORM instances (see kgraph/db/models/base.py).
    ``read_only``: the process cannot write the file or its folder; ``write`` refuses.
    """

    url: str
    engine: Engine
    path: Path | None
    read_only: bool = False
    _write_engine: Engine = field(init=False, repr=False)
    _read_engine: Engine = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._write_engine = self.engine.execution_options(**{sqlite.WRITE_OPTION: True})
        # A read sees one snapshot throughout, as SQLite's read transaction does (PostgreSQL's
        # default, READ COMMITTED, takes one per statement). Writes stay READ COMMITTED:
        # they serialise on the project's lock and must see what committed before it.
        self._read_engine = (
            self.engine.execution_options(isolation_level="REPEATABLE READ")
            if self.engine.dialect.name == "postgresql"
            else self.engine
        )

    @property
    def where(self) -> str:
        """The database as a person would name it: its path, or its URL (no password)."""
        if self.path is not None:
            return str(self.path)
        return display_url(self.url) if is_server_url(self.url) else self.url

    @property
    def dialect(self) -> str:
        """ "sqlite" or "postgresql"."""
        return str(self.engine.dialect.name)

    def write(self, operation: Callable[[Connection], T]) -> T:
        """Run ``operation(conn)`` in a write transaction, retried whole on a locked database.

        The transaction takes SQLite's write lock up front (BEGIN IMMEDIATE). Keep the
        operation short and free of slow work (no embedding, no parsing, no network).
        """
        if self.read_only:
            raise DatabaseError(read_only_message(self.where))

        def attempt() -> T:
            with self._write_engine.begin() as conn:
                return operation(conn)

        return self._translated(attempt)

    def read(self, operation: Callable[[Connection], T]) -> T:
        """Run ``operation(conn)`` in a read transaction (retried on a locked database)."""

        def attempt() -> T:
            with self._read_engine.begin() as conn:
                return operation(conn)

        return self._translated(attempt)

    def read_raw(self, operation: Callable[[ReadConnection], T]) -> T:
        """:meth:`read` with the DB-API connection under the transaction: code written once
        against kgraph.db.direct.Transactions runs here, and without SQLAlchemy on a
        kgraph.db.direct.DirectDatabase."""
        return self.read(lambda conn: operation(raw_connection(conn)))

    def write_raw(self, operation: Callable[[ReadConnection], T]) -> T:
        """:meth:`write` with the DB-API connection under the transaction (see read_raw)."""
        return self.write(lambda conn: operation(raw_connection(conn)))

    def _translated(self, attempt: Callable[[], T]) -> T:
        return run_translated(attempt, lambda: self.where)

    @contextlib.contextmanager
    def exclusive(
        self, name: str, on_wait: Callable[[Holder | None], None] | None = None
    ) -> Iterator[None]:
        """Hold the lock ``name`` (e.g. "graph": one parse at a time) across processes and,
        on a server, across machines: a file lock beside a SQLite file
        (``<file>.<name>.lock``), an advisory lock of the project on PostgreSQL. Blocks while
        another holds it, calling ``on_wait(holder)`` first (holder None: not known)."""
        if self.path is None and self.dialect == "postgresql":
            schema = postgres.project_schema(self.url)
            wait = None if on_wait is None else (lambda: on_wait(None))
            try:
                with postgres.session_lock(self.engine, schema, name, on_wait=wait):
                    yield
            except KgraphError:
                raise
            except Exception as exc:  # the lock's own connection: a server gone mid-parse
                failure = describe_failure(exc, self.where)
                if failure is None:
                    raise
                raise failure from exc
            return
        with held_lock(self.path, f".{name}.lock", on_wait=on_wait):
            yield

    def close(self) -> None:
        self.engine.dispose()


def make_engine(url: str, read_only: str | None = None) -> Engine:
    """An engine for ``url``. ``read_only`` (SQLite files only): "ro" opens the file with
    ``mode=ro``; "immutable" also tells SQLite nobody writes it (needed when the folder is
    read-only, where SQLite cannot create the WAL index a normal open needs).
    Raises InvalidValueError for a URL SQLAlchemy cannot use."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    options: dict[str, Any] = {}
    path = sqlite_path(url)
    schema = None
    if read_only and path is not None:
        query = "immutable=1" if read_only == "immutable" else "mode=ro"
        uri = f"file:{quote(str(path))}?{query}"
        options["creator"] = lambda: sqlite3.connect(uri, uri=True, check_same_thread=False)
    target = url
    if is_server_url(url):
        target, options, schema = postgres.engine_arguments(url)
    try:
        engine = create_engine(target, **options)
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as exc:
        shown = display_url(url) if is_server_url(url) else url
        hint = (
            " (install the driver: pip install 'kgraph[postgres]')"
            if isinstance(exc, ImportError | NoSuchModuleError) and is_server_url(url)
            else ""
        )
        raise InvalidValueError(
            f"cannot use database URL {shown!r}: {first_line(exc)}{hint}"
        ) from exc
    if engine.dialect.name == "sqlite":
        sqlite.configure_sqlite_engine(engine, read_only=bool(read_only))
    elif engine.dialect.name == "postgresql" and schema is not None:
        postgres.configure_postgres_engine(engine, schema, sqlite.WRITE_OPTION)
    return engine


@contextlib.contextmanager
def file_lock(
    path: Path | None, suffix: str = ".lock", on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold an exclusive lock on ``<path><suffix>``: serialises work on one database file
    across processes. Blocks while another process holds it, calling ``on_wait`` first.
    A no-op without a file (or without ``fcntl``)."""
    with held_lock(path, suffix, on_wait=None if on_wait is None else lambda _holder: on_wait()):
        yield


def backup_before_upgrade(path: Path, revision: str) -> Path:
    """Copy the database next to itself before an upgrade; returns the copy's path.

    At most one copy per revision step attempted: an upgrade that failed changed nothing,
    so a copy of this revision with the file's current size is reused instead of copying
    again on every command that tries (the file's time is no guide: opening a database can
    touch it).
    """
    size = path.stat().st_size
    for existing in sorted(path.parent.glob(f"{glob_escape(path.name)}.bak-{revision}-*")):
        try:
            if existing.stat().st_size == size:
                return existing
        except OSError:
            continue
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    destination = path.with_name(f"{path.name}.bak-{revision}-{stamp}")
    try:
        sqlite.backup_file(path, destination)
    except Exception:
        shutil.copy2(path, destination)
    return destination


def refuse_unknown(engine: Engine, where: str, revision: str | None) -> None:
    """Refuse, before any copy or change, a database this kgraph cannot upgrade."""
    if revision is not None:
        check_revision(where, revision)  # raises SchemaTooNewError for a newer one
        return
    tables = {t for t in migrate.table_names(engine) if not t.startswith("sqlite_")}
    if set(CORE_TABLES) & tables:
        raise DatabaseError(
            f"{where} has kgraph tables but no schema version (a pre-release kgraph, or a "
            "damaged version table); move it aside and kgraph creates a new one"
        )
    if tables:  # another application's database: never add 23 tables to it
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise DatabaseError(
            f"{where} is not a kgraph database (it holds {shown}); give kgraph a file of its own"
        )


def _ensure_schema(engine: Engine, path: Path | None, where: str, *, backup: bool = True) -> None:
    """Upgrade to head if needed; a file that held a kgraph schema is copied first (unless
    ``backup`` is False: a trial on a throwaway copy)."""
    if migrate.current_revision(engine) == HEAD_REVISION:
        return
    with file_lock(path):  # first-time creation and upgrades, one process at a time
        revision = with_retry(lambda: migrate.current_revision(engine))
        if revision == HEAD_REVISION:
            return
        refuse_unknown(engine, where, revision)
        kept = None
        if backup and path is not None and (revision is not None or migrate.table_names(engine)):
            kept = backup_before_upgrade(path, revision or "none")
        try:
            with_retry(lambda: migrate.upgrade_to_head(engine))
        except KgraphError:
            raise
        except Exception as exc:
            failure = describe_failure(exc, where)
            if failure is None:
                raise
            copy = f"; a copy is at {kept}" if kept is not None else ""
            raise DatabaseError(
                f"cannot upgrade database {where} from schema {revision or 'none'}: "
                f"{first_line(exc)}{copy}"
                + (". It may come from a pre-release kgraph: move it aside" if revision else "")
            ) from exc


def try_upgrade(path: Path) -> str | None:
    """Upgrade a copy of the SQLite file at ``path`` in a temp folder: None when the copy
    reaches this kgraph's schema, else why not (what doctor says instead of promising an
    upgrade the next use would refuse)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kgraph-upgrade-") as folder:
        copy = Path(folder) / path.name
        sqlite.backup_file(path, copy)
        engine = make_engine(f"sqlite:///{copy}")
        try:
            _ensure_schema(engine, copy, str(path), backup=False)
        except KgraphError as exc:
            return str(exc)
        finally:
            engine.dispose()
    return None


def is_default_location(path: Path) -> bool:
    """True for ``<folder>/.claude/execution-state.db``: the only place whose missing
    ``.claude/`` folder kgraph creates (the project's own database)."""
    return path.name == DEFAULT_NAME and path.parent.name == DEFAULT_FOLDER


def check_database_path(path: Path) -> str | None:
    """Validate a database path before SQLite sees it; returns the read-only mode to open
    it with (None: read-write, "ro", "immutable"). Raises InvalidValueError for a path that
    cannot be a database file, DatabaseError for a file kgraph cannot use."""
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise InvalidValueError(f"{parent} is not a folder")
        if not (is_default_location(path) and parent.parent.is_dir()):
            raise InvalidValueError(
                f"{parent} does not exist: check --db / KGRAPH_DB (kgraph creates only a "
                "project's .claude/ folder)"
            )
        try:
            parent.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise DatabaseError(f"cannot create {parent}: {exc.strerror or exc}") from exc
    try:
        info = path.stat()
    except FileNotFoundError:
        if not os.access(parent, os.W_OK | os.X_OK):
            raise DatabaseError(
                f"cannot create database {path}: the folder {parent} is read-only"
            ) from None
        return None
    except OSError as exc:
        raise DatabaseError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(info.st_mode):
        raise InvalidValueError(f"{path} is a directory, not a database file")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidValueError(f"{path} is not a regular file")
    if not os.access(path, os.R_OK):
        raise DatabaseError(f"cannot read database {path}: permission denied")
    try:
        is_sqlite = sqlite.is_sqlite_file(path)
    except OSError as exc:
        raise DatabaseError(f"cannot read database {path}: {exc.strerror or exc}") from exc
    if not is_sqlite:
        raise DatabaseError(f"{path} is not a SQLite database (or its first page is damaged)")
    if not os.access(parent, os.W_OK | os.X_OK):
        return "immutable"
    if not os.access(path, os.W_OK):
        return "ro"
    return None


def open_database(url: str | None = None, cwd: Path | None = None) -> Database:
    """Open (creating and upgrading as needed) the database at ``url``.

    ``url`` defaults to :func:`kgraph.db.location.resolve_database_url`. Raises
    InvalidValueError for a path or URL that cannot be a database (exit 2), DatabaseError
    with a one-line message when the file cannot be used (see the module docstring).
    """
    url = url or resolve_database_url(cwd=cwd)
    if is_server_url(url):
        from kgraph.db.project import with_project

        url = with_project(url, project_root(cwd), os.environ)
    path = sqlite_path(url)
    mode = check_database_path(path) if path is not None else None
    where = str(path) if path is not None else display_url(url)
    created = path is not None and not path.exists()
    engine = make_engine(url, read_only=mode)
    try:
        if mode is not None:
            revision = migrate.current_revision(engine)
            if revision != HEAD_REVISION:
                raise DatabaseError(
                    f"database {where} is read-only and at schema {revision or 'none'}; "
                    f"this kgraph needs {HEAD_REVISION}: make it writable once to upgrade it"
                )
        else:
            _ensure_schema(engine, path, where)
    except KgraphError:
        engine.dispose()
        raise
    except Exception as exc:
        engine.dispose()
        failure = describe_failure(exc, where)
        if failure is None:
            raise
        raise failure from exc
    if created and path is not None and is_default_location(path):
        with contextlib.suppress(OSError):  # an ignore rule is a courtesy, never a failure
            from kgraph.db.gitignore import ignore_claude_dir

            ignore_claude_dir(path.parent)
    return Database(url=url, engine=engine, path=path, read_only=mode is not None)
