"""Refreshing the hooks' local copy of a server project (see kgraph.db.mirror).

Run by the capture worker, which already holds SQLAlchemy and a connection to the server.
The copy holds what the hooks' read model reads, in four groups, each copied only when one
of its rows changed on the server since the last refresh (see ``_GROUPS``):

- ``knowledge``: every entity (without its vector: the hooks never embed) and relationship,
  replaced whole (the mirror's FTS5 triggers index the texts);
- ``sessions``: the newest :data:`SESSIONS` sessions (recent work at session start);
- ``checkpoints``: workflows with their actions and commits;
- ``graph``: the code graph file by file. A file is copied again when its ``graph_files``
  row changed or its edges did: re-resolving a file rewrites its edges under new serial
  ids, so (count, max id) of its edges tells, without reading them, whether the copy holds
  the server's. Big graphs (120 MB for sqlalchemy) are copied once, then only what moved.

A copy that is of another server or project, or at another schema revision, is deleted and
built anew: it is a cache, never migrated or backed up.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Table, delete, insert, select
from sqlalchemy.engine import Connection

from kgraph.db.core import Database, open_database
from kgraph.db.location import path_to_url
from kgraph.db.mirror import (
    MIRROR_FILE,
    STAMP_FILE,
    MirrorStamp,
    read_stamp,
    source_key,
    write_stamp,
)
from kgraph.db.models import (
    Action,
    Commit,
    Entity,
    GraphEntity,
    GraphFile,
    GraphRelationship,
    Relationship,
    Session,
    Workflow,
    table_of,
)
from kgraph.db.reader import CHUNK, chunked, open_reader

__all__ = ["MirrorReport", "refresh_mirror"]

# Newest sessions copied: recent work reads the last five (kgraph.recall.readmodel).
SESSIONS = 50
# Graph files copied per transaction: bounds memory on a first copy of a big graph.
FILES_PER_BATCH = 400

ENTITIES = table_of(Entity)
RELATIONSHIPS = table_of(Relationship)
SESSIONS_T = table_of(Session)
WORKFLOWS = table_of(Workflow)
ACTIONS = table_of(Action)
COMMITS = table_of(Commit)
FILES = table_of(GraphFile)
GRAPH_ENTITIES = table_of(GraphEntity)
EDGES = table_of(GraphRelationship)
# Columns the copy leaves empty: nothing the hooks read, and most of the bytes.
_LEFT_OUT = {"embedding", "deps", "missing", "pulled", "sites"}

# The tables of each group. A group is copied again when any of its rows changed on the
# server: PostgreSQL writes every inserted or updated row version with the writing
# transaction's id (``xmin``), so (row count, sum of xmin) moves with any insert, update or
# delete, whatever column changed. (The source of a copy is always a server.)
_GROUPS = {
    "knowledge": ("entities", "relationships"),
    "sessions": ("sessions",),
    "checkpoints": ("workflows", "actions", "commits"),
    "graph": ("graph_files", "graph_entities", "graph_relationships"),
}


@dataclass
class MirrorReport:
    """What a refresh did: rows copied per group, groups left as they were, and its time."""

    copied: dict[str, int] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)
    rebuilt: bool = False
    seconds: float = 0.0


def refresh_mirror(source: Database, folder: Path) -> MirrorReport:
    """Bring the copy in ``folder`` up to date with the server project ``source``."""
    started = time.time()
    report = MirrorReport()
    key = source_key(source.url)
    stamp = read_stamp(folder)
    previous = stamp.fingerprints if stamp is not None and stamp.source == key else None
    path = folder / MIRROR_FILE
    if previous is None or not _usable(path):
        _discard(folder)
        previous, report.rebuilt = {}, True
    mirror = open_database(path_to_url(path))
    try:
        prints = source.read(_fingerprints)
        for group, copy in _COPIERS.items():
            if prints[group] == previous.get(group):
                report.unchanged.append(group)
                continue
            report.copied[group] = copy(source, mirror)
        write_stamp(folder, MirrorStamp(source=key, refreshed_at=started, fingerprints=prints))
    finally:
        mirror.close()
    report.seconds = time.time() - started
    return report


def _usable(path: Path) -> bool:
    """True when ``path`` is a kgraph SQLite database at this kgraph's schema."""
    try:
        conn = open_reader(path)
    except Exception:
        return False
    if conn is None:
        return False
    conn.close()
    return True


def _discard(folder: Path) -> None:
    for name in (MIRROR_FILE, f"{MIRROR_FILE}-wal", f"{MIRROR_FILE}-shm"):
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()
    with contextlib.suppress(FileNotFoundError):
        (folder / STAMP_FILE).unlink()


def _fingerprints(conn: Connection) -> dict[str, str]:
    return {
        group: "|".join(
            f"{count}:{versions}"
            for table in tables
            for count, versions in [
                conn.exec_driver_sql(f"SELECT COUNT(*), SUM(xmin::text::bigint) FROM {table}").one()
            ]
        )
        for group, tables in _GROUPS.items()
    }


def _columns(table: Table) -> list[Any]:
    return [c for c in table.columns if c.name not in _LEFT_OUT and c.name != "search_vector"]


def _rows(
    conn: Connection, table: Table, where: Any = None, order: Any = None, limit: int | None = None
) -> list[Any]:
    statement = select(*_columns(table))
    if where is not None:
        statement = statement.where(where)
    if order is not None:
        statement = statement.order_by(order).limit(limit)
    return [dict(row._mapping) for row in conn.execute(statement)]


def _replace(conn: Connection, tables: Sequence[Table], rows: Sequence[list[Any]]) -> int:
    """Empty ``tables`` (children first) and insert ``rows`` (parents first)."""
    for table in reversed(tables):
        conn.execute(delete(table))
    for table, batch in zip(tables, rows, strict=True):
        if batch:
            conn.execute(insert(table), batch)
    return sum(len(batch) for batch in rows)


def _copy_whole(tables: Sequence[Table], read: Callable[[Connection], list[list[Any]]]) -> Any:
    def copy(source: Database, mirror: Database) -> int:
        rows = source.read(read)
        return mirror.write(lambda conn: _replace(conn, tables, rows))

    return copy


def _read_knowledge(conn: Connection) -> list[list[Any]]:
    return [_rows(conn, ENTITIES), _rows(conn, RELATIONSHIPS)]


def _read_sessions(conn: Connection) -> list[list[Any]]:
    return [_rows(conn, SESSIONS_T, order=SESSIONS_T.c.started_at.desc(), limit=SESSIONS)]


def _read_checkpoints(conn: Connection) -> list[list[Any]]:
    return [_rows(conn, WORKFLOWS), _rows(conn, ACTIONS), _rows(conn, COMMITS)]


def _copy_graph(source: Database, mirror: Database) -> int:
    """Copy the files whose rows or edges differ, then drop the files the server lost."""
    theirs = source.read(_graph_state)
    ours = mirror.read(_graph_state)
    changed = sorted(path for path, state in theirs.items() if ours.get(path) != state)
    gone = sorted(set(ours) - set(theirs))
    copied = 0
    for start in range(0, len(changed), FILES_PER_BATCH):
        batch = changed[start : start + FILES_PER_BATCH]
        rows = source.read(lambda conn, batch=batch: _graph_rows(conn, batch))  # type: ignore[misc]
        copied += mirror.write(lambda conn, b=batch, r=rows: _put_graph(conn, b, r))  # type: ignore[misc]
    if gone:
        mirror.write(lambda conn: _put_graph(conn, gone, ([], [], [])))
    return copied


def _graph_state(conn: Connection) -> dict[str, tuple[Any, ...]]:
    """path -> (content hash, parsed at, stale, edge count, max edge id) of every file;
    files with edges but no row (never: edges die with their file) are keyed too."""
    state: dict[str, tuple[Any, ...]] = {
        str(path): (str(digest), str(parsed), bool(stale), 0, None)
        for path, digest, parsed, stale in conn.execute(
            select(FILES.c.path, FILES.c.content_hash, FILES.c.parsed_at, FILES.c.stale)
        )
    }
    for path, count, newest in conn.exec_driver_sql(
        "SELECT file_path, COUNT(*), MAX(id) FROM graph_relationships GROUP BY file_path"
    ):
        head = state.get(str(path), (None, None, None))[:3]
        state[str(path)] = (*head, int(count), int(newest))
    return state


def _graph_rows(conn: Connection, paths: Sequence[str]) -> tuple[list[Any], ...]:
    files, entities, edges = [], [], []
    for part in chunked(paths, CHUNK):
        files += _rows(conn, FILES, FILES.c.path.in_(part))
        entities += _rows(conn, GRAPH_ENTITIES, GRAPH_ENTITIES.c.file_path.in_(part))
        edges += _rows(conn, EDGES, EDGES.c.file_path.in_(part))
    return files, entities, edges


def _put_graph(conn: Connection, paths: Iterable[str], rows: tuple[list[Any], ...]) -> int:
    for part in chunked(list(paths), CHUNK):
        conn.execute(delete(FILES).where(FILES.c.path.in_(part)))
        conn.execute(delete(GRAPH_ENTITIES).where(GRAPH_ENTITIES.c.file_path.in_(part)))
        conn.execute(delete(EDGES).where(EDGES.c.file_path.in_(part)))
    for table, batch in zip((FILES, GRAPH_ENTITIES, EDGES), rows, strict=True):
        if batch:
            conn.execute(insert(table), batch)
    return sum(len(batch) for batch in rows)


_COPIERS: dict[str, Callable[[Database, Database], int]] = {
    "knowledge": _copy_whole((ENTITIES, RELATIONSHIPS), _read_knowledge),
    "sessions": _copy_whole((SESSIONS_T,), _read_sessions),
    "checkpoints": _copy_whole((WORKFLOWS, ACTIONS, COMMITS), _read_checkpoints),
    "graph": _copy_graph,
}
