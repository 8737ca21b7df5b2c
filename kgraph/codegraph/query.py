"""Code graph queries: what-calls, blast-radius, find, exports, what-depends-on, summary.

Each is a typed function over a :class:`~kgraph.db.Database` returning frozen records; each
writes one ``graph_queries`` row (type, parameters, result count, duration). Traversals are
plain indexed SQL, level by level: no networkx.

The cross-area contract is re-exported here: :func:`has_graph`, :func:`files_in_blast_radius`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from kgraph.codegraph.build import UNRESOLVED_PREFIX
from kgraph.codegraph.dispatch import OVERRIDE, calls_into
from kgraph.codegraph.filedeps import (
    DEPENDENCY_TYPES,
    dependents_by_level,
    files_in_blast_radius,
    has_graph,
    normalise_path,
)
from kgraph.codegraph.gcpause import no_gc
from kgraph.codegraph.records import (
    ENTITY_COLUMNS,
    ID_CHUNK,
    EntityRecord,
    entities_by_id,
    entity_record,
    is_test_path,
    recorded,
    required_name,
    resolve_one,
)
from kgraph.codegraph.store import failed_files
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphFile, GraphRelationship, table_of
from kgraph.db.reader import raw_connection
from kgraph.db.sqlite import fetch_raw_in
from kgraph.errors import NotFoundError

__all__ = [
    "BlastRadius",
    "CallerRecord",
    "FileDependent",
    "Impact",
    "blast_radius",
    "exports",
    "files_in_blast_radius",
    "find_entities",
    "graph_summary",
    "has_graph",
    "what_calls",
    "what_depends_on",
]

ENTITIES = table_of(GraphEntity)
EDGES = table_of(GraphRelationship)
FILES = table_of(GraphFile)


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


def _targets(conn: Connection, target: EntityRecord) -> list[str]:
    """Ids whose callers are ``target``'s callers: a class is called through its constructor."""
    ids = [target.id]
    if target.type == "class":
        ids += [f"{target.id}.__init__", f"{target.id}.constructor"]
    return ids


def _edges_to(conn: Connection, ids: Sequence[str], types: Sequence[str]) -> list[Any]:
    rows: list[Any] = []
    ordered = sorted(set(ids))
    for i in range(0, len(ordered), ID_CHUNK):
        rows += conn.execute(
            select(
                EDGES.c.from_entity,
                EDGES.c.to_entity,
                EDGES.c.type,
                EDGES.c.file_path,
                EDGES.c.line_number,
                EDGES.c.confidence,
                EDGES.c.resolution,
            ).where(EDGES.c.to_entity.in_(ordered[i : i + ID_CHUNK]), EDGES.c.type.in_(types))
        ).all()
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
    conn: Connection, ids: Sequence[str], include_unresolved: bool
) -> list[tuple[Any, ...]]:
    """Edges into ``ids`` joined with their source entity, one statement per 5,000 ids.

    Plain driver SQL on the transaction's own DBAPI connection: for the most-called
    functions this returns ~10,000 rows, and SQLAlchemy's expanding IN and per-row result
    processing cost more than the query.
    """
    rows = fetch_raw_in(conn, _DEPENDENTS_SQL, ids)
    return rows if include_unresolved else [r for r in rows if r[5] != "name-only"]


def _override_dependents(conn: Connection, methods: set[str]) -> list[tuple[Any, ...]]:
    """The ``self.m()`` calls that run ``methods`` as overrides (:mod:`.dispatch`), shaped
    like :func:`_dependents_of`'s rows."""
    if not methods:
        return []
    calls = calls_into(conn, methods)
    callers = entities_by_id(conn, [c.caller for c in calls])
    return [
        (c.caller, c.override, "calls", c.line, c.confidence, OVERRIDE, *callers[c.caller][1:])
        for c in calls
        if c.caller in callers
    ]


def what_calls(
    db: Database, name: str, *, include_unresolved: bool = False, record: bool = True
) -> tuple[EntityRecord, list[CallerRecord]]:
    """The target ``name`` resolves to and its direct callers (file:line of each call).
    A method's callers include the ``self.m()`` calls written in its class's ancestors,
    which run it for an instance of its class (resolution ``override``, :mod:`.dispatch`).

    Name-only candidates (calls whose receiver could not be resolved but whose method name
    matches) are added, with their low confidence, when ``include_unresolved``.
    """
    params = {"name": name, "include_unresolved": include_unresolved}
    with recorded(db, "what-calls", params, record) as done:

        def query(conn: Connection) -> tuple[EntityRecord, list[CallerRecord]]:
            target = resolve_one(conn, name)
            ids = _targets(conn, target)
            if include_unresolved:
                ids.append(UNRESOLVED_PREFIX + target.name)
            rows = _edges_to(conn, ids, ("calls",))
            found = [
                (r.from_entity, r.to_entity, r.line_number, r.confidence, r.resolution)
                for r in rows
            ]
            if target.type == "method":  # self.m() in an ancestor runs this override
                found += [
                    (c.caller, c.written, c.line, c.confidence, OVERRIDE)
                    for c in calls_into(conn, [target.id])
                ]
            callers = entities_by_id(conn, [f[0] for f in found])
            result = [CallerRecord(callers[f[0]], *f[1:]) for f in found if f[0] in callers]
            result.sort(key=lambda c: (c.caller.file_path, c.line or 0, c.caller.id))
            return target, result

        target, callers = db.read(query)
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


def _blast_seeds(conn: Connection, target: EntityRecord) -> tuple[set[str], set[str]]:
    """The ids whose dependents depend on ``target`` (a class's members, a file's
    entities), and which of them are methods (overrides: :mod:`.dispatch`)."""
    seeds = set(_targets(conn, target))
    methods = {target.id} if target.type == "method" else set()
    if target.type in ("class", "file", "interface"):
        prefix = target.id if target.type == "file" else target.id + "."
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        like = pattern + ("::%" if target.type == "file" else "%")
        for member, kind in conn.execute(
            select(ENTITIES.c.id, ENTITIES.c.type).where(ENTITIES.c.id.like(like, escape="\\"))
        ):
            seeds.add(member)
            if kind == "method":
                methods.add(member)
    return seeds, methods


def blast_radius(
    db: Database,
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

        def query(conn: Connection) -> BlastRadius:
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
            result = db.read(query)
        done(len(result.impacts))
    return result


def find_entities(
    db: Database, name: str, *, limit: int = 20, record: bool = True, exact: bool = False
) -> tuple[str, list[EntityRecord]]:
    """Entities matching ``name``: exact (name, qualified name or id), else prefix, else
    substring, else fuzzy (similar names). Returns (how it matched, matches).

    ``exact`` stops after the exact lookup (an indexed query; the fuzzy step reads every
    name), for callers resolving many names at once."""
    name = required_name(name)
    with recorded(db, "find", {"name": name, "limit": limit}, record) as done:

        def query(conn: Connection) -> tuple[str, list[EntityRecord]]:
            cols = (ENTITIES.c.name, ENTITIES.c.qualified_name, ENTITIES.c.id)
            found = conn.execute(
                select(*ENTITY_COLUMNS)
                .where((cols[0] == name) | (cols[1] == name) | (cols[2] == name))
                .limit(limit)
            ).all()
            if found:
                return "exact", [entity_record(r) for r in found]
            if exact:
                return "none", []
            escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            for kind, pattern in (("prefix", f"{escaped}%"), ("substring", f"%{escaped}%")):
                rows = conn.execute(
                    select(*ENTITY_COLUMNS)
                    .where(
                        cols[0].ilike(pattern, escape="\\") | cols[1].ilike(pattern, escape="\\")
                    )
                    .order_by(func.length(ENTITIES.c.qualified_name), ENTITIES.c.id)
                    .limit(limit)
                ).all()
                if rows:
                    return kind, [entity_record(r) for r in rows]
            import difflib  # only for fuzzy matching

            names = conn.execute(select(ENTITIES.c.name).distinct()).scalars().all()
            close = difflib.get_close_matches(name, names, n=limit, cutoff=0.7)
            if not close:
                return "none", []
            rows = conn.execute(
                select(*ENTITY_COLUMNS).where(ENTITIES.c.name.in_(close)).limit(limit)
            ).all()
            order = {n: i for i, n in enumerate(close)}
            return "fuzzy", sorted(
                (entity_record(r) for r in rows), key=lambda e: (order[e.name], e.id)
            )

        kind, matches = db.read(query)
        done(len(matches))
    return kind, matches


def exports(db: Database, file: str, *, record: bool = True) -> list[dict[str, Any]]:
    """What a file exports: its exported definitions and what it re-exports from elsewhere."""
    path = normalise_path(file)
    with recorded(db, "exports", {"file": path}, record) as done:

        def query(conn: Connection) -> list[dict[str, Any]]:
            if conn.execute(select(FILES.c.path).where(FILES.c.path == path)).first() is None:
                raise NotFoundError(f"{path} is not in the code graph (run: kgraph graph parse)")
            own = conn.execute(
                select(*ENTITY_COLUMNS)
                .where(  # top level: members go along
                    ENTITIES.c.file_path == path,
                    ENTITIES.c.exported.is_(True),
                    ENTITIES.c.type != "file",
                    ~ENTITIES.c.qualified_name.contains("."),
                )
                .order_by(ENTITIES.c.line_number)
            ).all()
            result = [{"kind": "defined", "entity": entity_record(r).to_dict()} for r in own]
            edges = (
                conn.execute(
                    select(EDGES.c.to_entity).where(  # file_path: indexed
                        EDGES.c.file_path == path,
                        EDGES.c.from_entity == path,
                        EDGES.c.type == "exports",
                    )
                )
                .scalars()
                .all()
            )
            others = entities_by_id(conn, [e for e in edges if not e.startswith(path + "::")])
            for target in sorted(set(edges)):
                if target in others:
                    result.append({"kind": "re-export", "entity": others[target].to_dict()})
                elif not target.startswith(path + "::"):
                    result.append({"kind": "re-export", "entity": {"id": target}})
            return result

        result = db.read(query)
        done(len(result))
    return result


@dataclass(frozen=True)
class FileDependent:
    path: str
    depth: int
    via: str
    edges: tuple[tuple[str, str, str, int | None], ...]  # (type, from, to, line), direct only

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "depth": self.depth,
            "via": self.via,
            "test": is_test_path(self.path),
            "edges": [
                {"type": t, "from": f, "to": to, "line": line} for t, f, to, line in self.edges
            ],
        }


def what_depends_on(
    db: Database, file: str, *, depth: int = 1, record: bool = True
) -> list[FileDependent]:
    """Files that depend on ``file`` (up to ``depth`` levels), with the direct edges."""
    path = normalise_path(file)
    with recorded(db, "what-depends-on", {"file": path, "depth": depth}, record) as done:

        def query(conn: Connection) -> list[FileDependent]:
            if conn.execute(select(FILES.c.path).where(FILES.c.path == path)).first() is None:
                raise NotFoundError(f"{path} is not in the code graph (run: kgraph graph parse)")
            levels = dependents_by_level(raw_connection(conn), [path], depth)
            rows = conn.execute(
                select(
                    EDGES.c.file_path,
                    EDGES.c.type,
                    EDGES.c.from_entity,
                    EDGES.c.to_entity,
                    EDGES.c.line_number,
                )
                .where(
                    EDGES.c.to_file == path,
                    EDGES.c.file_path != path,
                    EDGES.c.type.in_(DEPENDENCY_TYPES),
                    EDGES.c.resolution != "name-only",
                )
                .order_by(EDGES.c.file_path, EDGES.c.line_number)
            ).all()
            direct: dict[str, list[tuple[str, str, str, int | None]]] = {}
            for row in rows:
                direct.setdefault(row.file_path, []).append(
                    (row.type, row.from_entity, row.to_entity, row.line_number)
                )
            return [
                FileDependent(p, level, via, tuple(direct.get(p, ())))
                for p, (level, via) in sorted(levels.items(), key=lambda x: (x[1][0], x[0]))
            ]

        result = db.read(query)
        done(len(result))
    return result


def graph_summary(db: Database, *, record: bool = True) -> dict[str, Any]:
    """Counts: files per language, entities per type, edges per type, how calls resolved;
    and the files whose analysis failed, with why (``failed_files``)."""
    with recorded(db, "summary", {}, record) as done:

        def query(conn: Connection) -> dict[str, Any]:
            def counts(statement: Any) -> dict[str, int]:
                return {str(k): int(v) for k, v in conn.execute(statement).all()}

            files = counts(select(FILES.c.language, func.count()).group_by(FILES.c.language))
            return {
                "files": sum(files.values()),
                "languages": files,
                "files_with_errors": conn.execute(
                    select(func.count()).where(FILES.c.parse_errors > 0)
                ).scalar_one(),
                "stale_files": conn.execute(
                    select(func.count()).where(FILES.c.stale.is_(True))
                ).scalar_one(),
                "failed_files": failed_files(conn),
                "last_parsed_at": conn.execute(select(func.max(FILES.c.parsed_at))).scalar(),
                "entities": counts(select(ENTITIES.c.type, func.count()).group_by(ENTITIES.c.type)),
                "relationships": counts(select(EDGES.c.type, func.count()).group_by(EDGES.c.type)),
                "call_resolution": counts(
                    select(EDGES.c.resolution, func.count())
                    .where(EDGES.c.type == "calls")
                    .group_by(EDGES.c.resolution)
                ),
            }

        result = db.read(query)
        done(result["files"])
    return result
