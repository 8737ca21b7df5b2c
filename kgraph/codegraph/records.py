"""Query results as frozen records, the name resolution every query starts with, and the
``graph_queries`` metric row every query writes.

Every query is written once, as plain SQL on a DB-API connection, and runs in the
transactions of a kgraph.db ``Transactions``: a :class:`~kgraph.db.Database` (the library,
the MCP server) or a :class:`~kgraph.db.DirectDatabase` on the driver alone, for a
one-off ``kgraph graph`` command that must not pay for importing SQLAlchemy (issue 36).
Standard library only at import time.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from kgraph.codegraph.filedeps import normalise_path
from kgraph.db.reader import ReadConnection, chunked, db_time, marks
from kgraph.errors import InvalidValueError, KgraphError, NotFoundError
from kgraph.redact import redact_data

if TYPE_CHECKING:
    from kgraph.db.direct import Transactions

ID_CHUNK = 500  # ids per IN (...) list
# The id prefix of a name-only call candidate: kgraph.codegraph.targets' own (a test checks;
# importing it would import the resolver).
UNRESOLVED_PREFIX = "<unresolved>::"
_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|_test\.(py|go)$|Tests?\.java$|(^|/)conftest\.py$"
    r"|\.(test|spec)\.[jt]sx?$"
)


def is_test_path(path: str) -> bool:
    """True for test files (``tests/``, ``test_*.py``, ``*_test.py``, ``*.test.ts``,
    ``*_test.go``...)."""
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


# The columns of an EntityRecord, in its order (``e.``: the entities table's alias).
ENTITY_COLUMNS = (
    "e.id, e.type, e.name, e.qualified_name, e.file_path, e.line_number, e.end_line, e.exported"
)
ENTITY_SELECT = f"SELECT {ENTITY_COLUMNS} FROM graph_entities e"


def entity_record(row: Sequence[Any]) -> EntityRecord:
    """A row of :data:`ENTITY_COLUMNS` as a record."""
    return EntityRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]))


def entities_by_id(conn: ReadConnection, ids: Sequence[str]) -> dict[str, EntityRecord]:
    """The entities of ``ids`` (each once), read in chunks the driver's parameter limit
    allows."""
    found: dict[str, EntityRecord] = {}
    for chunk in chunked(sorted(set(ids)), ID_CHUNK):
        for row in conn.execute(f"{ENTITY_SELECT} WHERE e.id IN ({marks(len(chunk))})", chunk):
            found[row[0]] = entity_record(row)
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


def candidates_for(conn: ReadConnection, name: str) -> list[EntityRecord]:
    """Entities ``name`` may mean, most specific interpretation first.

    Tried in order: an entity id (``path::qualified.name`` or a file path), a qualified name
    (``Class.method``), a dotted module path (``pkg.mod.Class.method``), a plain name.
    """
    name = required_name(name)
    by_id = conn.execute(f"{ENTITY_SELECT} WHERE e.id IN (?, ?)", (name, normalise_path(name)))
    found = [entity_record(r) for r in by_id]
    if found:
        return found
    rows = conn.execute(
        f"{ENTITY_SELECT} WHERE e.qualified_name = ? AND e.type != 'file'", (name,)
    ).fetchall()
    if rows:
        return _sorted(rows)
    if "." in name:  # pkg.mod.Class.method: a file's module name + a qualified name
        parts = name.split(".")
        splits = range(1, len(parts))
        either = " OR ".join("f.qualified_name = ? AND e.qualified_name = ?" for _ in splits)
        params = [text for i in splits for text in (".".join(parts[:i]), ".".join(parts[i:]))]
        rows = conn.execute(
            f"{ENTITY_SELECT} JOIN graph_entities f ON f.id = e.file_path "
            f"WHERE f.type = 'file' AND ({either})",
            params,
        ).fetchall()
        if rows:
            return _sorted(rows)
        rows = conn.execute(
            f"{ENTITY_SELECT} WHERE e.type = 'file' AND e.qualified_name = ?", (name,)
        ).fetchall()
        if rows:
            return _sorted(rows)
    rows = conn.execute(
        f"{ENTITY_SELECT} WHERE e.name = ? AND e.type != 'file'", (name,)
    ).fetchall()
    return _sorted(rows)


def _sorted(rows: Sequence[Sequence[Any]]) -> list[EntityRecord]:
    return sorted((entity_record(r) for r in rows), key=lambda e: (e.file_path, e.line_number or 0))


def resolve_one(conn: ReadConnection, name: str) -> EntityRecord:
    """The single entity ``name`` means; NotFoundError or AmbiguousNameError otherwise."""
    candidates = candidates_for(conn, name)
    if not candidates:
        if conn.execute("SELECT id FROM graph_entities LIMIT 1").fetchone() is None:
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


_LOG_SQL = (
    "INSERT INTO graph_queries (query_type, query_params, result_count, duration_ms, "
    "created_at) VALUES (?, ?, ?, ?, ?)"
)


def log_query(
    conn: ReadConnection, query_type: str, params: dict[str, Any], count: int, duration_ms: float
) -> None:
    """Write one ``graph_queries`` row, as the model's types store it: the parameters as
    JSON text (redacted: a name may be a pasted token), the time as naive UTC text."""
    text = json.dumps(redact_data(params))
    when = db_time(datetime.now(UTC))
    conn.execute(_LOG_SQL, (query_type, text, count, round(duration_ms, 3), when))


@contextmanager
def recorded(
    db: Transactions, query_type: str, params: dict[str, Any], record: bool = True
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
    with suppress(KgraphError):
        db.write_raw(lambda conn: log_query(conn, query_type, params, count[0], duration))
