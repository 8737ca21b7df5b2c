"""The two code-graph reads a picture needs that the other queries do not give: the whole
file-level dependency graph, and what a symbol calls (callees, forward along ``calls``).

``what_calls`` / ``blast_radius`` / ``what_depends_on`` walk edges backwards (who depends on
this); a viewer also needs the other direction and an overview of every file. Both reads
use the ``file_path`` index (an edge is stored under its source's file), never a scan per
entity. Name-only call candidates are left out: they are guesses, not dependencies.
Plain SQL on the DB-API connection, as the other queries (:mod:`.records`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from kgraph.codegraph.dispatch import DISPATCHED, calls_from
from kgraph.codegraph.filedeps import DEPENDENCY_TYPES
from kgraph.codegraph.records import (
    ID_CHUNK,
    EntityRecord,
    entities_by_id,
    recorded,
    resolve_one,
)
from kgraph.db.reader import ReadConnection, chunked, marks
from kgraph.errors import InvalidValueError

if TYPE_CHECKING:
    from kgraph.db.direct import Transactions

__all__ = ["Callee", "FileGraph", "FileLink", "callees", "file_graph"]

MAX_DEPTH = 6


@dataclass(frozen=True)
class FileLink:
    """``source`` depends on ``target``: ``count`` edges of ``types`` (calls, imports, ...)."""

    source: str
    target: str
    types: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class FileGraph:
    """Every parsed file (path, language) and the file-level dependencies between them."""

    files: tuple[tuple[str, str], ...]
    links: tuple[FileLink, ...]


_LINKS_SQL = (
    "SELECT file_path, to_file, type, count(*) FROM graph_relationships "
    "WHERE to_file IS NOT NULL AND to_file != file_path "
    f"AND type IN ({marks(len(DEPENDENCY_TYPES))}) AND resolution != ? "
    "GROUP BY file_path, to_file, type"
)


def file_graph(db: Transactions) -> FileGraph:
    """The whole file-level graph in one read: one grouped pass over the ``to_file`` index."""

    def read(conn: ReadConnection) -> FileGraph:
        files = tuple(
            (str(p), str(lang))
            for p, lang in conn.execute("SELECT path, language FROM graph_files ORDER BY path")
        )
        rows = conn.execute(_LINKS_SQL, (*DEPENDENCY_TYPES, "name-only"))
        grouped: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        for source, target, type_, count in rows:
            grouped[(source, target)][type_] = int(count)
        links = tuple(
            FileLink(source, target, tuple(sorted(types)), sum(types.values()))
            for (source, target), types in sorted(grouped.items())
        )
        return FileGraph(files, links)

    return db.read_raw(read)


class Callee(NamedTuple):
    """An entity ``entity`` reached at ``depth`` because ``via`` (one level closer to the
    start) calls it at ``line``."""

    entity: EntityRecord
    depth: int
    via: str
    line: int | None
    confidence: float


def _seeds(conn: ReadConnection, target: EntityRecord) -> list[tuple[str, str]]:
    """(entity id, file) whose calls count as the target's: a class's methods, a file's code."""
    if target.type not in ("class", "interface", "file"):
        return [(target.id, target.file_path)]
    rows = conn.execute(
        "SELECT id, file_path FROM graph_entities WHERE file_path = ?", (target.file_path,)
    ).fetchall()
    prefix = target.id + "."
    return [(target.id, target.file_path)] + [
        (str(i), str(f))
        for i, f in rows
        if i != target.id and (target.type == "file" or str(i).startswith(prefix))
    ]


_CALLS_FROM_SQL = (
    "SELECT from_entity, to_entity, line_number, confidence, resolution "
    "FROM graph_relationships WHERE file_path = ? AND from_entity IN ({}) "
    "AND type = ? AND resolution != ?"
)


def _calls_from(
    conn: ReadConnection, sources: Sequence[tuple[str, str]]
) -> list[tuple[str, str, int | None, float]]:
    """``calls`` edges (from, to, line, confidence) out of ``sources``, read file by file;
    a ``self.m()`` call also reaches the overrides of ``m`` below its class
    (:mod:`.dispatch`)."""
    by_file: dict[str, set[str]] = defaultdict(set)
    for entity_id, path in sources:
        by_file[path].add(entity_id)
    rows: list[tuple[str, str, int | None, float]] = []
    self_calls: list[tuple[str, str, int | None, float]] = []
    for path, ids in sorted(by_file.items()):
        for chunk in chunked(sorted(ids), ID_CHUNK):
            sql = _CALLS_FROM_SQL.format(marks(len(chunk)))
            for f, t, line, c, resolution in conn.execute(
                sql, (path, *chunk, "calls", "name-only")
            ):
                rows.append((str(f), str(t), line, float(c)))
                if resolution in DISPATCHED:
                    self_calls.append(rows[-1])
    rows += [(c.caller, c.override, c.line, c.confidence) for c in calls_from(conn, self_calls)]
    return rows


def callees(
    db: Transactions, name: str, *, depth: int = 1, record: bool = True
) -> tuple[EntityRecord, list[Callee]]:
    """The target ``name`` resolves to and what it calls, transitively up to ``depth`` levels,
    each entity at its minimum depth. Only the repository's own entities are returned
    (builtins and external modules have no entity); a class's methods and a file's code
    count as the class's / the file's calls."""
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidValueError(f"depth must be between 1 and {MAX_DEPTH}")
    with recorded(db, "callees", {"name": name, "depth": depth}, record) as done:

        def query(conn: ReadConnection) -> tuple[EntityRecord, list[Callee]]:
            target = resolve_one(conn, name)
            frontier = _seeds(conn, target)
            seen = {entity_id for entity_id, _ in frontier}
            found: list[Callee] = []
            for level in range(1, depth + 1):
                best: dict[str, tuple[str, int | None, float]] = {}
                for source, to_id, line, confidence in _calls_from(conn, frontier):
                    kept = best.get(to_id)
                    if to_id not in seen and (kept is None or confidence > kept[2]):
                        best[to_id] = (source, line, confidence)
                entities = entities_by_id(conn, list(best))
                frontier = []
                for to_id, (source, line, confidence) in sorted(best.items()):
                    entity = entities.get(to_id)
                    if entity is None:
                        continue
                    seen.add(to_id)
                    found.append(Callee(entity, level, source, line, confidence))
                    frontier.append((entity.id, entity.file_path))
                if not frontier:
                    break
            return target, found

        target, result = db.read_raw(query)
        done(len(result))
    return target, result
