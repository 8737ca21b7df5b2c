"""Code graph queries: what-calls and blast-radius (find, exports and what-depends-on are
in :mod:`.lookups`; the summary's counts in :mod:`.stats`).

Each is a typed function over a kgraph.db ``Transactions`` (a Database, or a
DirectDatabase opened for one command) returning frozen records; each writes one
``graph_queries`` row (type, parameters, result count, duration). Traversals are plain
indexed SQL on the DB-API connection, level by level (a breadth-first search: each entity
at its minimum depth): no networkx, no SQLAlchemy, so ``kgraph graph what-calls`` from a
shell runs on the driver alone.

The cross-area contract is re-exported here: :func:`has_graph`, :func:`files_in_blast_radius`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from kgraph.codegraph.access import fetch_in
from kgraph.codegraph.dispatch import OVERRIDE, OverrideCall, calls_into
from kgraph.codegraph.filedeps import files_in_blast_radius, has_graph
from kgraph.codegraph.gcpause import no_gc
from kgraph.codegraph.lookups import FileDependent, exports, find_entities, what_depends_on
from kgraph.codegraph.records import (
    ID_CHUNK,
    UNRESOLVED_PREFIX,
    EntityRecord,
    entities_by_id,
    is_test_path,
    recorded,
    resolve_one,
)
from kgraph.db.reader import ReadConnection, chunked, marks

if TYPE_CHECKING:
    from kgraph.db.direct import Transactions

__all__ = [
    "BlastRadius",
    "CallerRecord",
    "FileDependent",
    "Impact",
    "blast_radius",
    "exports",
    "files_in_blast_radius",
    "find_entities",
    "has_graph",
    "what_calls",
    "what_depends_on",
]


@dataclass(frozen=True)
class CallerRecord:
    """One caller of a target: who, where the call is, and how sure the edge is."""

    caller: EntityRecord
    callee: str
    line: int | None
    confidence: float
    resolution: str | None

    def to_dict(self) -> dict[str, Any]:
        location = f"{self.caller.file_path}:{self.line}" if self.line else self.caller.file_path
        return {
            "caller": self.caller.to_dict(),
            "callee": self.callee,
            "line": self.line,
            "location": location,
            "confidence": self.confidence,
            "resolution": self.resolution,
        }


def _targets(target: EntityRecord) -> list[str]:
    """Ids whose callers are ``target``'s callers: a class is called through its constructor."""
    ids = [target.id]
    if target.type == "class":
        ids += [f"{target.id}.__init__", f"{target.id}.constructor"]
    return ids


_CALLS_SQL = (
    "SELECT from_entity, to_entity, type, file_path, line_number, confidence, resolution "
    "FROM graph_relationships WHERE to_entity IN ({}) AND type IN (?)"
)


def _calls_to(conn: ReadConnection, ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """The ``calls`` edges into ``ids``."""
    rows: list[tuple[Any, ...]] = []
    for chunk in chunked(sorted(set(ids)), ID_CHUNK):
        rows += conn.execute(_CALLS_SQL.format(marks(len(chunk))), (*chunk, "calls")).fetchall()
    return rows


_DEPENDENTS_SQL = (
    "SELECT r.from_entity, r.to_entity, r.type, r.line_number, r.confidence, r.resolution, "
    "e.type, e.name, e.qualified_name, e.file_path, e.line_number, e.end_line, e.exported "
    "FROM graph_relationships r JOIN graph_entities e ON e.id = r.from_entity "
    # "+r.type": filter on the type, seek on to_entity alone (one index seek an id, not
    # four: a third faster on the big levels of a blast radius).
    "WHERE r.to_entity IN ({}) AND +r.type IN ('calls', 'imports', 'extends', 'implements')"
)


def _dependents_of(
    conn: ReadConnection, ids: Sequence[str], include_unresolved: bool
) -> list[tuple[Any, ...]]:
    """Edges into ``ids`` joined with their source entity, one statement per 5,000 ids
    (for the most-called functions a level returns ~10,000 rows)."""
    rows = fetch_in(conn, _DEPENDENTS_SQL, ids)
    return rows if include_unresolved else [r for r in rows if r[5] != "name-only"]


def _overrides_into(conn: ReadConnection, methods: Iterable[str]) -> list[OverrideCall]:
    """:func:`~.dispatch.calls_into`, in a fixed order: it follows the iteration order of
    sets of strings, which changes from process to process (hash randomisation), and a
    blast radius keeps the first of equally confident edges."""
    return sorted(calls_into(conn, methods), key=lambda c: (c.caller, c.override, c.line or 0))


def _override_dependents(conn: ReadConnection, methods: set[str]) -> list[tuple[Any, ...]]:
    """The ``self.m()`` calls that run ``methods`` as overrides (:mod:`.dispatch`), shaped
    like :func:`_dependents_of`'s rows."""
    if not methods:
        return []
    calls = _overrides_into(conn, methods)
    callers = entities_by_id(conn, [c.caller for c in calls])
    return [
        (c.caller, c.override, "calls", c.line, c.confidence, OVERRIDE, *callers[c.caller][1:])
        for c in calls
        if c.caller in callers
    ]


def what_calls(
    db: Transactions, name: str, *, include_unresolved: bool = False, record: bool = True
) -> tuple[EntityRecord, list[CallerRecord]]:
    """The target ``name`` resolves to and its direct callers (file:line of each call).
    A method's callers include the ``self.m()`` calls written in its class's ancestors,
    which run it for an instance of its class (resolution ``override``, :mod:`.dispatch`).

    Name-only candidates (calls whose receiver could not be resolved but whose method name
    matches) are added, with their low confidence, when ``include_unresolved``.
    """
    params = {"name": name, "include_unresolved": include_unresolved}
    with recorded(db, "what-calls", params, record) as done:

        def query(conn: ReadConnection) -> tuple[EntityRecord, list[CallerRecord]]:
            target = resolve_one(conn, name)
            ids = _targets(target)
            if include_unresolved:
                ids.append(UNRESOLVED_PREFIX + target.name)
            # (caller, callee, line, confidence, resolution)
            found = [(r[0], r[1], r[4], r[5], r[6]) for r in _calls_to(conn, ids)]
            if target.type == "method":  # self.m() in an ancestor runs this override
                found += [
                    (c.caller, c.written, c.line, c.confidence, OVERRIDE)
                    for c in _overrides_into(conn, [target.id])
                ]
            callers = entities_by_id(conn, [f[0] for f in found])
            result = [CallerRecord(callers[f[0]], *f[1:]) for f in found if f[0] in callers]
            result.sort(key=lambda c: (c.caller.file_path, c.line or 0, c.caller.id))
            return target, result

        target, callers = db.read_raw(query)
        done(len(callers))
    return target, callers


class Impact(NamedTuple):
    """An entity in a blast radius: reached at ``depth`` through an edge of ``via_type`` from
    ``entity`` to ``via`` (the entity one level closer to the target), at ``line``. A
    NamedTuple, like EntityRecord: the worst blast radius holds about 9,000."""

    entity: EntityRecord
    depth: int
    via: str
    via_type: str
    line: int | None
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.entity.to_dict(),
            "depth": self.depth,
            "via": self.via,
            "via_type": self.via_type,
            "line": self.line,
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class BlastRadius:
    target: EntityRecord
    depth: int
    impacts: tuple[Impact, ...]

    def by_file(self, tests: bool) -> dict[str, list[Impact]]:
        """Impacts grouped by file, test files (``tests=True``) or the others."""
        groups: dict[str, list[Impact]] = {}
        for impact in self.impacts:
            if is_test_path(impact.entity.file_path) == tests:
                groups.setdefault(impact.entity.file_path, []).append(impact)
        return dict(sorted(groups.items()))

    def to_dict(self) -> dict[str, Any]:
        def group(tests: bool) -> dict[str, list[dict[str, Any]]]:
            return {
                path: [i.to_dict() for i in items] for path, items in self.by_file(tests).items()
            }

        return {
            "target": self.target.to_dict(),
            "depth": self.depth,
            "count": len(self.impacts),
            "files": group(False),
            "tests": group(True),
        }


def _blast_seeds(conn: ReadConnection, target: EntityRecord) -> tuple[set[str], set[str]]:
    """The ids whose dependents depend on ``target`` (a class's members, a file's
    entities), and which of them are methods (overrides: :mod:`.dispatch`).

    Members are found by their id's prefix. LIKE ignores case (SQLite's for ASCII, and
    PostgreSQL's through kgraph.db.pgreader), so the prefix is checked again here: a
    class ``Foo`` does not own ``FOO.x``."""
    seeds = set(_targets(target))
    methods = {target.id} if target.type == "method" else set()
    if target.type in ("class", "file", "interface"):
        prefix = target.id + ("::" if target.type == "file" else ".")
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        for member, kind in conn.execute(
            "SELECT id, type FROM graph_entities WHERE id LIKE ? ESCAPE '\\'", (pattern + "%",)
        ):
            if member.startswith(prefix):
                seeds.add(member)
                if kind == "method":
                    methods.add(member)
    return seeds, methods


def blast_radius(
    db: Transactions,
    name: str,
    *,
    depth: int = 3,
    include_unresolved: bool = False,
    record: bool = True,
) -> BlastRadius:
    """Everything that transitively depends on ``name`` (reverse calls/imports/extends/
    implements edges), up to ``depth`` levels, each at its minimum depth.

    A class brings its methods along (callers of ``C.m`` depend on ``C``); a file brings
    every entity it defines; a method, the ``self.m()`` calls it runs as an override.
    Modules reached (module-level code, imports) are listed but not expanded further.
    Name-only call candidates count only with ``include_unresolved``.
    """
    params = {"name": name, "depth": depth, "include_unresolved": include_unresolved}
    with recorded(db, "blast-radius", params, record) as done:

        def query(conn: ReadConnection) -> BlastRadius:
            target = resolve_one(conn, name)
            seeds, methods = _blast_seeds(conn, target)
            names = {target.name} if include_unresolved else set()
            seen = set(seeds)
            impacts: list[Impact] = []
            frontier = set(seeds)
            for level in range(1, max(depth, 0) + 1):
                ids = list(frontier) + [UNRESOLVED_PREFIX + n for n in names]
                frontier, names = set(), set()
                # Each new source once, through its most confident edge (first one on ties).
                best: dict[str, tuple[Any, ...]] = {}
                rows = _dependents_of(conn, ids, include_unresolved)
                for row in rows + _override_dependents(conn, methods):
                    source = row[0]
                    if source not in seen:
                        kept = best.get(source)
                        if kept is None or row[4] > kept[4]:
                            best[source] = row
                seen.update(best)
                for source, row in best.items():
                    entity = EntityRecord(
                        source, row[6], row[7], row[8], row[9], row[10], row[11], bool(row[12])
                    )
                    impacts.append(Impact(entity, level, row[1], row[2], row[3], row[4]))
                    # A module (file entity) that imports or calls the target is shown but
                    # not expanded: every importer of it does not depend on the target.
                    if "::" in source:
                        frontier.add(source)
                methods = {source for source, row in best.items() if row[6] == "method"}
                if include_unresolved:
                    names = {i.split("::", 1)[1].rsplit(".", 1)[-1] for i in frontier if "::" in i}
                if not frontier:
                    break
            impacts.sort(key=lambda x: (x.depth, x.entity.file_path, x.line or 0, x.entity.id))
            return BlastRadius(target, depth, tuple(impacts))

        with no_gc():
            result = db.read_raw(query)
        done(len(result.impacts))
    return result
