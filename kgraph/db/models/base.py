"""Declarative base, constraint naming convention and shared column types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, MetaData, Table, TypeDecorator, event
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase

from kgraph.db.reader import isoformat as isoformat  # the --json time format

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime stored as naive UTC (SQLite has no time zones)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; kgraph stores aware UTC datetimes")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    """Typed table definitions. kgraph reads and writes them with SQLAlchemy Core only.

    Use ``Model.__table__`` (or ``select(Model.col, ...)``) with the Connection that
    ``Database.read``/``Database.write`` pass in; never build or load ORM instances.
    Why: CPython 3.11.7, the interpreter this project runs on (its CPU PyTorch build is for
    3.11), corrupts its heap when the garbage collector runs over many ORM InstanceState
    objects: a workflow with ~1,500 actions loaded through the ORM segfaulted within a few
    hundred writes, while the same work in Core ran clean (the same code on 3.12 does not
    crash). Core is also ~3x faster per row, which the hook budgets need.
    """

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(model: type[Base]) -> Table:
    """The Core Table of a model, typed as such (``Model.__table__`` is typed FromClause)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


ORM_INSTANCES_FORBIDDEN = (
    "kgraph does not create or load ORM instances (CPython 3.11.7 segfaults in GC over "
    "SQLAlchemy InstanceState objects): use SQLAlchemy Core on Model.__table__ with the "
    "Connection db.read/db.write pass in; see kgraph/db/models/base.py and "
    "kgraph/checkpoint/workflows.py"
)


@event.listens_for(Base, "init", propagate=True)
def _forbid_orm_init(target: Any, args: Any, kwargs: Any) -> None:
    raise RuntimeError(ORM_INSTANCES_FORBIDDEN)


@event.listens_for(Base, "load", propagate=True)
def _forbid_orm_load(target: Any, context: Any) -> None:
    raise RuntimeError(ORM_INSTANCES_FORBIDDEN)
