"""Bringing a database to the head revision. Imports Alembic only when an upgrade is needed.

The migrations live in the top-level ``alembic/`` folder of the source tree and ship inside
the wheel as ``kgraph/_migrations``; the installed copy is preferred.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError, ProgrammingError

from kgraph.db import postgres, sqlite
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.errors import DatabaseError, SchemaTooNewError

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)


def migrations_dir() -> Path:
    """The migrations folder: installed inside the package, else the source tree's alembic/."""
    package_dir = Path(__file__).resolve().parent.parent
    installed = package_dir / "_migrations"
    if (installed / "env.py").is_file():
        return installed
    source = package_dir.parent / "alembic"
    if (source / "env.py").is_file():
        return source
    raise DatabaseError("kgraph's migrations are missing from this installation; reinstall kgraph")


def current_revision(engine: Engine) -> str | None:
    """The revision recorded in the database, or None for a database without one."""
    try:
        with engine.connect() as conn:
            return _revision(conn)
    except OperationalError as exc:
        if "no such table" in str(exc).lower():
            return None
        raise  # the caller words it (kgraph.db.failures), naming the file
    except ProgrammingError as exc:
        if postgres.is_missing_table_error(exc):
            return None
        raise


def _revision(conn: Connection) -> str | None:
    row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
    return None if row is None else str(row[0])


def table_names(engine: Engine) -> set[str]:
    """The tables in the database."""
    from sqlalchemy import inspect

    return set(inspect(engine).get_table_names())


def is_up_to_date(engine: Engine) -> bool:
    return current_revision(engine) == HEAD_REVISION


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    cfg = Config()
    # Options go through configparser interpolation: a literal % (a folder named "50%", a
    # URL-encoded password) must be written %%.
    cfg.set_main_option("script_location", str(migrations_dir()).replace("%", "%%"))
    url = engine.url.render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def known_revisions(cfg: Config) -> set[str]:
    from alembic.script import ScriptDirectory

    return {script.revision for script in ScriptDirectory.from_config(cfg).walk_revisions()}


def upgrade_to_head(engine: Engine) -> None:
    """Run every pending migration in one transaction, with foreign keys off meanwhile."""
    from alembic import command

    cfg = alembic_config(engine)
    revision = current_revision(engine)
    if revision is not None and revision not in known_revisions(cfg):
        raise SchemaTooNewError(
            f"the database is at schema {revision}, newer than this kgraph knows; upgrade kgraph"
        )
    is_sqlite = engine.dialect.name == "sqlite"
    schema = engine.dialect.default_schema_name
    with engine.connect() as conn:
        if is_sqlite:
            sqlite.set_foreign_keys(conn, False)
        try:
            with conn.begin():
                if engine.dialect.name == "postgresql" and schema:
                    # One transaction: DDL is transactional on PostgreSQL, so a failed
                    # upgrade leaves the schema as it was (no file copy to take or keep).
                    postgres.prepare_schema(conn, schema)
                    exists = conn.scalar(text("SELECT to_regclass('alembic_version')"))
                    if exists is not None and _revision(conn) == HEAD_REVISION:
                        return  # another process upgraded it while we waited
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        finally:
            if is_sqlite:
                sqlite.set_foreign_keys(conn, True)
    log.info("database upgraded from %s to %s", revision, HEAD_REVISION)
