"""File-level dependency walks: the cheap queries other areas call (hooks, context ranking).

These read only ``graph_files`` and the ``file_path``/``to_file`` columns of
``graph_relationships`` with a few indexed SQL queries per depth level; networkx is never
imported here. The walks take a DB-API connection (``sqlite3``, or psycopg through
kgraph.db.pgreader), so the hooks run them without SQLAlchemy and library code runs the
very same SQL on its transaction's driver connection
(:func:`kgraph.db.reader.raw_connection`). Stdlib only at import time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgraph.db.reader import ReadConnection, chunked, marks, raw_connection

if TYPE_CHECKING:
    from kgraph.db import Database

__all__ = [
    "DEPENDENCY_TYPES",
    "dependencies_of",
    "dependents_by_level",
    "files_in_blast_radius",
    "graph_present",
    "has_graph",
    "normalise_path",
]

# Edge types along which a change propagates to the file holding the edge's source.
DEPENDENCY_TYPES: tuple[str, ...] = ("calls", "imports", "extends", "implements")
_TYPE_LIST = ",".join(f"'{t}'" for t in DEPENDENCY_TYPES)


def graph_present(conn: ReadConnection) -> bool:
    """True when any file has been parsed into the code graph (one indexed row lookup)."""
    return conn.execute("SELECT 1 FROM graph_files LIMIT 1").fetchone() is not None


def has_graph(db: Database) -> bool:
    """:func:`graph_present` on an open database."""
    return db.read(lambda c: graph_present(raw_connection(c)))


def dependents_by_level(
    conn: ReadConnection, files: Sequence[str], depth: int, include_unresolved: bool = False
) -> dict[str, tuple[int, str]]:
    """Files depending (transitively, up to ``depth``) on ``files``: path -> (depth, via file).

    ``via`` is the file one level closer to the start. Name-only call candidates are left out
    unless ``include_unresolved`` (they have no ``to_file`` anyway).
    """
    start = {normalise_path(f) for f in files if f}
    found: dict[str, tuple[int, str]] = {}
    frontier = set(start)
    seen = set(start)
    resolution_filter = "" if include_unresolved else " AND resolution != 'name-only'"
    for level in range(1, max(depth, 0) + 1):
        if not frontier:
            break
        next_frontier: set[str] = set()
        for chunk in chunked(sorted(frontier)):
            rows = conn.execute(
                "SELECT DISTINCT file_path, to_file FROM graph_relationships "
                f"WHERE to_file IN ({marks(len(chunk))}) AND type IN ({_TYPE_LIST})"
                f"{resolution_filter} ORDER BY file_path, to_file",
                tuple(chunk),
            ).fetchall()
            for source, target in rows:
                if source in seen:
                    continue
                seen.add(source)
                found[source] = (level, target)
                next_frontier.add(source)
        frontier = next_frontier
    return found


def dependencies_of(conn: ReadConnection, file: str, limit: int = 5) -> list[tuple[str, int]]:
    """The files ``file`` depends on most closely: (path, number of edges into it), most
    edges first (ties by path); its own file excluded."""
    path = normalise_path(file)
    rows = conn.execute(
        "SELECT to_file, COUNT(*) AS n FROM graph_relationships "
        f"WHERE file_path = ? AND to_file IS NOT NULL AND to_file != ? AND type IN ({_TYPE_LIST})"
        " AND resolution != 'name-only' GROUP BY to_file ORDER BY n DESC, to_file LIMIT ?",
        (path, path, limit),
    ).fetchall()
    return [(str(target), int(count)) for target, count in rows]


def files_in_blast_radius(db: Database, files: Sequence[str], depth: int = 2) -> dict[str, int]:
    """Repo-relative paths of files that depend on ``files`` (up to ``depth`` levels) -> min depth.

    The given files are excluded. Paths are repo-relative POSIX strings, the same as the
    knowledge graph's File entities. An empty graph gives ``{}``.
    """
    if not files or depth <= 0:
        return {}
    found = db.read(lambda c: dependents_by_level(raw_connection(c), files, depth))
    return {path: level for path, (level, _via) in found.items()}


def normalise_path(path: str) -> str:
    """Repo-relative POSIX form of a path as given by a caller (``./a\\b.py`` -> ``a/b.py``)."""
    value = path.replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    return value.rstrip("/")
