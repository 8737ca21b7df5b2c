"""Alembic environment for kgraph.

At run time kgraph passes its own connection in ``config.attributes["connection"]`` (see
kgraph/db/migrate.py); developers running ``alembic`` by hand get an engine from the URL.
"""

from __future__ import annotations

from logging.config import fileConfig
from typing import Any

from sqlalchemy import engine_from_config, pool

from alembic import context
from kgraph.db.fts import is_fts_object
from kgraph.db.models import Base

config = context.config

# Only a developer's `alembic` run has an ini file; a programmatic run keeps app logging.
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    # The FTS5 virtual table and its shadow tables (SQLite), the tsvector column and its
    # index (PostgreSQL) are created by hand in migrations.
    return not is_fts_object(name, type_)


def run_migrations(connection: Any) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        include_object=include_object,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = engine_from_config(
        config.get_section(config.config_ini_section, {}),
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as conn:
        run_migrations(conn)


if context.is_offline_mode():
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
