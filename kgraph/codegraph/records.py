"""Query results as frozen records, the name resolution every query starts with, and the
``graph_queries`` metric row every query writes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, NamedTuple

from sqlalchemy import Row, and_, insert, or_, select
from sqlalchemy.engine import Connection

from kgraph.codegraph.filedeps import normalise_path
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphQuery, table_of, utcnow
from kgraph.errors import InvalidValueError, KgraphError, NotFoundError
from kgraph.redact import redact_data

ENTITIES = table_of(GraphEntity)
ID_CHUNK = 500  # ids per IN (...) list
QUERIES = table_of(GraphQuery)
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|_test\.py$|(^|/)conftest\.py$"
    r"|\.(test|spec)\.[jt]sx?$"
)


def is_test_path(path: str) -> bool:
    """True for test files (``tests/``, ``test_*.py``, ``*_test.py``, ``*.test.ts``...)."""
    return bool(_TEST_PATH.search(path))


class EntityRecord(NamedTuple):
    """A code graph entity. A NamedTuple rather than a frozen dataclass: a blast radius
    builds thousands of them, and a tuple is built about 3x faster."""

    id: str
    type: str
    name: str
    qualified_name: str
    file_path: str
    line_number: int | None
    end_line: int | None
    exported: bool

    @property
    def location(self) -> str:
        return f"{self.file_path}:{self.line_number}" if self.line_number else self.file_path

    def to_dict(self) -> dict[str, Any]:
        return {**self._asdict(), "location": self.location}


ENTITY_COLUMNS = (
    ENTITIES.c.id,
    ENTITIES.c.type,
    ENTITIES.c.name,
    ENTITIES.c.qualified_name,
    ENTITIES.c.file_path,
    ENTITIES.c.line_number,
    ENTITIES.c.end_line,
    ENTITIES.c.exported,
)


def entity_record(row: Row[Any]) -> EntityRecord:
    return EntityRecord(
        row.id,
        row.type,
        row.name,
        row.qualified_name,
        row.file_path,
        row.line_number,
        row.end_line,
        bool(row.exported),
    )


def entities_by_id(conn: Connection, ids: Sequence[str]) -> dict[str, EntityRecord]:
    """The entities of ``ids`` (each once), read in chunks the driver's parameter limit
    allows."""
    found: dict[str, EntityRecord] = {}
    ordered = sorted(set(ids))
    for i in range(0, len(ordered), ID_CHUNK):
        for row in conn.execute(
            select(*ENTITY_COLUMNS).where(ENTITIES.c.id.in_(ordered[i : i + ID_CHUNK]))
        ):
            found[row.id] = entity_record(row)
    return found


class AmbiguousNameError(InvalidValueError):
    """A name matches several entities; ``candidates`` lists them (the CLI prints them)."""

    def __init__(self, name: str, candidates: list[EntityRecord]) -> None:
        self.name = name
        self.candidates = candidates
        shown = ", ".join(c.id for c in candidates[:10])
        more = f" (+{len(candidates) - 10} more)" if len(candidates) > 10 else ""
        super().__init__(
            f"{name!r} is ambiguous: {len(candidates)} candidates: {shown}{more}; "
            "use a qualified name or an id (path::name)"
        )


def required_name(name: str) -> str:
    """``name`` without surrounding blanks; InvalidValueError when nothing is left (a blank
    name would match every entity by prefix)."""
    stripped = name.strip()
    if not stripped:
        raise InvalidValueError(
            "a name is required: a function, class, method, module or file path"
        )
    return stripped


def candidates_for(conn: Connection, name: str) -> list[EntityRecord]:
    """Entities ``name`` may mean, most specific interpretation first.

    Tried in order: an entity id (``path::qualified.name`` or a file path), a qualified name
    (``Class.method``), a dotted module path (``pkg.mod.Class.method``), a plain name.
    """
    name = required_name(name)
    by_id = conn.execute(
        select(*ENTITY_COLUMNS).where(ENTITIES.c.id.in_([name, normalise_path(name)]))
    ).all()
    if by_id:
        return [entity_record(r) for r in by_id]
    rows = conn.execute(
        select(*ENTITY_COLUMNS).where(ENTITIES.c.qualified_name == name, ENTITIES.c.type != "file")
    ).all()
    if rows:
        return _sorted(rows)
    if "." in name:  # pkg.mod.Class.method: a file's module name + a qualified name
        files = ENTITIES.alias("f")
        parts = name.split(".")
        conditions = [
            and_(
                files.c.qualified_name == ".".join(parts[:i]),
                ENTITIES.c.qualified_name == ".".join(parts[i:]),
            )
            for i in range(1, len(parts))
        ]
        rows = conn.execute(
            select(*ENTITY_COLUMNS)
            .join(files, files.c.id == ENTITIES.c.file_path)
            .where(files.c.type == "file", or_(*conditions))
        ).all()
        if rows:
            return _sorted(rows)
        rows = conn.execute(
            select(*ENTITY_COLUMNS).where(
                ENTITIES.c.type == "file", ENTITIES.c.qualified_name == name
            )
        ).all()
        if rows:
            return _sorted(rows)
    rows = conn.execute(
        select(*ENTITY_COLUMNS).where(ENTITIES.c.name == name, ENTITIES.c.type != "file")
    ).all()
    return _sorted(rows)


def _sorted(rows: Sequence[Row[Any]]) -> list[EntityRecord]:
    return sorted((entity_record(r) for r in rows), key=lambda e: (e.file_path, e.line_number or 0))


def resolve_one(conn: Connection, name: str) -> EntityRecord:
    """The single entity ``name`` means; NotFoundError or AmbiguousNameError otherwise."""
    candidates = candidates_for(conn, name)
    if not candidates:
        if conn.execute(select(ENTITIES.c.id).limit(1)).first() is None:
            raise NotFoundError(
                f"no code entity named {name!r}: the code graph is empty "
                "(parse the project first: kgraph graph parse .)"
            )
        raise NotFoundError(f"no code entity named {name!r} (try: kgraph graph find {name})")
    if len(candidates) > 1:
        # `Cls.m` over a variable of the same name; a definition over its file.
        kinds = [c for c in candidates if c.type not in ("variable", "file")]
        if len(kinds) == 1:
            return kinds[0]
        raise AmbiguousNameError(name, candidates)
    return candidates[0]


@contextmanager
def recorded(
    db: Database, query_type: str, params: dict[str, Any], record: bool = True
) -> Iterator[Callable[[int], None]]:
    """Time a query and write its ``graph_queries`` row (fail-open: metrics never break a query).

    Usage: ``with recorded(db, "what-calls", {...}) as done: ...; done(result_count)``.
    """
    started = time.perf_counter()
    count: list[int] = [0]
    yield lambda n: count.__setitem__(0, n)
    if not record:
        return
    duration = (time.perf_counter() - started) * 1000
    row = {
        "query_type": query_type,
        "query_params": redact_data(params),  # a name may be a pasted token
        "result_count": count[0],
        "duration_ms": round(duration, 3),
        "created_at": utcnow(),
    }
    with suppress(KgraphError):
        db.write(lambda conn: conn.execute(insert(QUERIES), row))
