"""File-level dependency walks: the cheap queries other areas call (hooks, context ranking).

These read only ``graph_files`` and the ``to_file`` column of ``graph_relationships`` with a
few indexed SQL queries per depth level; networkx is never imported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import GraphFile, table_of

# Edge types along which a change propagates to the file holding the edge's source.
DEPENDENCY_TYPES: tuple[str, ...] = ("calls", "imports", "extends", "implements")
_CHUNK = 500


def has_graph(db: Database) -> bool:
    """True when any file has been parsed into the code graph (one indexed row lookup)."""
    files = table_of(GraphFile)
    return db.read(lambda c: c.execute(select(files.c.path).limit(1)).first() is not None)


def dependents_by_level(
    conn: Connection, files: Sequence[str], depth: int, include_unresolved: bool = False
) -> dict[str, tuple[int, str]]:
    """Files depending (transitively, up to ``depth``) on ``files``: path -> (depth, via file).

    ``via`` is the file one level closer to the start. Name-only call candidates are left out
    unless ``include_unresolved`` (they have no ``to_file`` anyway).
    """
    start = {normalise_path(f) for f in files if f}
    found: dict[str, tuple[int, str]] = {}
    frontier = set(start)
    seen = set(start)
    type_list = ",".join(f"'{t}'" for t in DEPENDENCY_TYPES)
    resolution_filter = "" if include_unresolved else " AND resolution != 'name-only'"
    for level in range(1, max(depth, 0) + 1):
        if not frontier:
            break
        next_frontier: set[str] = set()
        ordered = sorted(frontier)
        for i in range(0, len(ordered), _CHUNK):
            chunk = ordered[i : i + _CHUNK]
            params = {f"p{j}": value for j, value in enumerate(chunk)}
            placeholders = ",".join(f":p{j}" for j in range(len(chunk)))
            rows = conn.execute(
                text(
                    "SELECT DISTINCT file_path, to_file FROM graph_relationships "
                    f"WHERE to_file IN ({placeholders}) AND type IN ({type_list})"
                    f"{resolution_filter}"
                ),
                params,
            ).all()
            for source, target in rows:
                if source in seen:
                    continue
                seen.add(source)
                found[source] = (level, target)
                next_frontier.add(source)
        frontier = next_frontier
    return found


def files_in_blast_radius(db: Database, files: Sequence[str], depth: int = 2) -> dict[str, int]:
    """Repo-relative paths of files that depend on ``files`` (up to ``depth`` levels) -> min depth.

    The given files are excluded. Paths are repo-relative POSIX strings, the same as the
    knowledge graph's File entities. An empty graph gives ``{}``.
    """
    if not files or depth <= 0:
        return {}
    found = db.read(lambda s: dependents_by_level(s, files, depth))
    return {path: level for path, (level, _via) in found.items()}


def normalise_path(path: str) -> str:
    """Repo-relative POSIX form of a path as given by a caller (``./a\\b.py`` -> ``a/b.py``)."""
    value = path.replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    return value.rstrip("/")
