"""The context snapshot: what session-start needs, precomputed so the hook skips SQLAlchemy.

Importing SQLAlchemy's ORM and kgraph's models costs more than the whole session-start budget
(0.6 s), so the capture worker writes ``.claude/kgraph/context-snapshot.json`` after its
writes: every visible knowledge item (text cut to what the briefing shows), the active
workflow checkpoints, and the code graph's file-level reverse dependencies. The hook uses
the snapshot only while it is *fresh*: its ``stamp`` (size and mtime of the database file and
its WAL) must equal the files' current stat, so any write by anyone since the snapshot
(``kgraph learn``, a workflow update, a graph parse) sends the hook to the database instead.

Reading (:func:`load_snapshot`) imports only json/os; building (:func:`build_snapshot`)
runs in the worker.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgraph.capture.state import ensure_state_dir, state_dir

VERSION = 1
SNAPSHOT_NAME = "context-snapshot.json"
MAX_ITEMS = 50_000
# More than the briefing shows of an item (kgraph.hooks.briefing.ITEM_MAX_CHARS = 600), so a
# longer text is still seen as cut there and gets the same ellipsis as from the database.
CONTENT_CHARS = 640


def snapshot_path(root: Path) -> Path:
    return state_dir(root) / SNAPSHOT_NAME


def database_stamp(db_path: Path) -> list[int] | None:
    """(size, mtime_ns) of the database file and of its WAL (0, 0 when empty or absent)."""
    try:
        main = os.stat(db_path)
    except OSError:
        return None
    try:
        wal = os.stat(f"{db_path}-wal")
        wal_stamp = [wal.st_size, wal.st_mtime_ns] if wal.st_size else [0, 0]
    except OSError:
        wal_stamp = [0, 0]
    return [main.st_size, main.st_mtime_ns, *wal_stamp]


@dataclass(frozen=True)
class SnapshotItem:
    """A knowledge item as the snapshot keeps it (the fields ranking needs)."""

    id: str
    type: str
    content: str
    confidence: float
    issue_number: int | None
    code_areas: tuple[str, ...]
    files: tuple[str, ...]
    updated_at: datetime | None


@dataclass(frozen=True)
class SnapshotWorkflow:
    """An active workflow checkpoint (duck-types kgraph.checkpoint.WorkflowRecord for
    :func:`kgraph.hooks.briefing.render_checkpoint`)."""

    id: str
    issue_number: int
    branch: str
    worktree: str | None
    phase: str
    status: str
    retry_count: int
    updated_at: datetime | None
    actions: tuple[Any, ...] = ()
    commits: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _Action:
    action: str
    result: str


@dataclass(frozen=True)
class _Commit:
    sha: str
    message: str


@dataclass
class Snapshot:
    items: list[list[Any]]
    workflows: list[dict[str, Any]]
    graph: dict[str, list[str]]  # file -> files that depend on it (one level)
    has_graph: bool
    built_at: float = 0.0
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def matching_items(
        self, files: Iterable[str], areas: Iterable[str], issue: int | None
    ) -> list[SnapshotItem]:
        """Items about any of ``files``/``areas`` or tied to ``issue`` (OR)."""
        file_set, area_set = set(files), set(areas)
        found = []
        for row in self.items:
            if (
                (issue is not None and row[4] == issue)
                or not file_set.isdisjoint(row[6])
                or not area_set.isdisjoint(row[5])
            ):
                found.append(_item(row))
        return found

    def blast_radius(self, files: Sequence[str], depth: int) -> dict[str, int]:
        """Files depending on ``files`` up to ``depth`` levels -> min depth (given excluded)."""
        start = set(files)
        found: dict[str, int] = {}
        frontier = set(start)
        for level in range(1, depth + 1):
            following: set[str] = set()
            for path in frontier:
                for dependent in self.graph.get(path, ()):
                    if dependent not in start and dependent not in found:
                        found[dependent] = level
                        following.add(dependent)
            frontier = following
        return found

    def workflow_for(self, issue: int | None, branch: str | None) -> SnapshotWorkflow | None:
        """The most recently updated active workflow of ``issue``, else of ``branch``."""
        for key, value in (("issue_number", issue), ("branch", branch)):
            if value is None:
                continue
            matches = [w for w in self.workflows if w.get(key) == value]
            if matches:
                return _workflow(max(matches, key=lambda w: w.get("updated_at") or 0))
        return None


def _time(value: Any) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if isinstance(value, int | float) else None


def _item(row: list[Any]) -> SnapshotItem:
    return SnapshotItem(
        id=row[0],
        type=row[1],
        content=row[2],
        confidence=row[3],
        issue_number=row[4],
        code_areas=tuple(row[5]),
        files=tuple(row[6]),
        updated_at=_time(row[7]),
    )


def _workflow(data: dict[str, Any]) -> SnapshotWorkflow:
    return SnapshotWorkflow(
        id=str(data["id"]),
        issue_number=int(data["issue_number"]),
        branch=str(data["branch"]),
        worktree=data.get("worktree"),
        phase=str(data["phase"]),
        status=str(data["status"]),
        retry_count=int(data.get("retry_count") or 0),
        updated_at=_time(data.get("updated_at")),
        actions=tuple(_Action(a, r) for a, r in data.get("actions") or []),
        commits=tuple(_Commit(s, m) for s, m in data.get("commits") or []),
    )


def load_snapshot(root: Path, db_path: Path | None) -> Snapshot | None:
    """The snapshot of the database at ``db_path`` when it is fresh, else None."""
    if db_path is None:
        return None
    stamp = database_stamp(db_path)
    if stamp is None:
        return None
    try:
        data = json.loads(snapshot_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or data.get("db") != str(db_path)
        or data.get("stamp") != stamp
    ):
        return None
    try:
        return Snapshot(
            items=list(data["items"]),
            workflows=list(data["workflows"]),
            graph=dict(data["graph"]),
            has_graph=bool(data["has_graph"]),
            built_at=float(data.get("built_at") or 0),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def _file_edges(db: Any) -> dict[str, list[str]]:
    """Reverse file-level dependencies from the code graph: file -> files that depend on it."""
    from sqlalchemy import select

    from kgraph.codegraph.filedeps import DEPENDENCY_TYPES
    from kgraph.db.models import GraphRelationship, table_of

    edges = table_of(GraphRelationship)
    graph: dict[str, set[str]] = {}

    def read(conn: Any) -> None:
        rows = conn.execute(
            select(edges.c.file_path, edges.c.to_file)
            .where(
                edges.c.to_file.is_not(None),
                edges.c.type.in_(DEPENDENCY_TYPES),
                edges.c.resolution != "name-only",
            )
            .distinct()
        )
        for source, target in rows:
            if source != target:
                graph.setdefault(target, set()).add(source)

    db.read(read)
    return {target: sorted(sources) for target, sources in graph.items()}


def build_snapshot(db: Any) -> dict[str, Any]:
    """The snapshot content of an open database (no stamp yet)."""
    from kgraph.checkpoint import list_workflows
    from kgraph.codegraph import has_graph
    from kgraph.knowledge.query import list_items

    items = [
        [
            item.id,
            item.type,
            " ".join(item.content.split())[:CONTENT_CHARS],
            float(item.confidence),
            item.issue_number,
            list(item.code_areas),
            list(item.files),
            _epoch(item.updated_at),
        ]
        for item in list_items(db, limit=MAX_ITEMS)
    ]
    workflows = [
        {
            "id": w.id,
            "issue_number": w.issue_number,
            "branch": w.branch,
            "worktree": w.worktree,
            "phase": w.phase,
            "status": w.status,
            "retry_count": w.retry_count,
            "updated_at": _epoch(w.updated_at),
            "actions": [[a.action, a.result] for a in w.actions[-5:]],
            "commits": [[c.sha, c.message] for c in w.commits[-5:]],
        }
        for w in list_workflows(db, active=True)
    ]
    graph_present = has_graph(db)
    return {
        "version": VERSION,
        "items": items,
        "workflows": workflows,
        "has_graph": graph_present,
        "graph": _file_edges(db) if graph_present else {},
    }


def write_snapshot(root: Path, db_url: str, content: dict[str, Any], stamp: list[int]) -> Path:
    """Write the snapshot atomically with the stamp it is valid for."""
    from kgraph.db.location import sqlite_path

    ensure_state_dir(root)
    path = snapshot_path(root)
    body = {**content, "db": str(sqlite_path(db_url)), "stamp": stamp, "built_at": time.time()}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(body, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)
    return path


def refresh_snapshot(root: Path, db_url: str) -> bool:
    """Rebuild the snapshot if it is stale; True when a fresh one was written.

    Call it after closing the connections that wrote (closing the last connection
    checkpoints the WAL into the main file, which changes the stamp). The database is read
    on a fresh engine, closed again before stamping; when the stamp moved during the build
    (someone else wrote), nothing is written and the next worker tries again.
    """
    from kgraph.db import open_database
    from kgraph.db.location import sqlite_path

    db_path = sqlite_path(db_url)
    if db_path is None or load_snapshot(root, db_path) is not None:
        return False
    before = database_stamp(db_path)
    db = open_database(db_url)
    try:
        content = build_snapshot(db)
    finally:
        db.close()
    after = database_stamp(db_path)
    if after is None or before != after:
        return False  # written (or checkpointed) meanwhile: the content may be stale
    write_snapshot(root, db_url, content, after)
    return True
