"""The active workflow checkpoint of an issue or branch: the lookup hooks and library share.

One implementation of "which workflow is this session continuing": the most recently
updated running/paused workflow of the issue, else of the branch. It runs on a DB-API
connection (``sqlite3``, or psycopg through kgraph.db.pgreader), so the session-start hook
reads it without SQLAlchemy and
:func:`kgraph.checkpoint.find_workflow_for_branch` runs the same SQL on its transaction's
driver connection. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from kgraph.checkpoint.common import ACTIVE_STATUSES
from kgraph.db.reader import ReadConnection, parse_time

__all__ = ["ActionBrief", "CommitBrief", "WorkflowBrief", "active_workflow", "active_workflow_id"]

# The checkpoint paragraph shows this many of the latest actions and commits.
RECENT = 5
_ACTIVE = ",".join(f"'{s}'" for s in ACTIVE_STATUSES)


class ActionBrief(NamedTuple):
    action: str
    result: str


class CommitBrief(NamedTuple):
    sha: str
    message: str


@dataclass(frozen=True)
class WorkflowBrief:
    """A workflow with its latest actions and commits (what a briefing shows)."""

    id: str
    issue_number: int
    branch: str
    worktree: str | None
    phase: str
    status: str
    retry_count: int
    updated_at: datetime | None
    actions: tuple[ActionBrief, ...] = ()
    commits: tuple[CommitBrief, ...] = ()


def active_workflow_id(
    conn: ReadConnection, issue_number: int | None = None, branch: str | None = None
) -> str | None:
    """The id of the latest running/paused workflow of ``issue_number``, else of ``branch``."""
    for column, value in (("issue_number", issue_number), ("branch", branch)):
        if value is None or value == "":
            continue
        row = conn.execute(
            f"SELECT id FROM workflows WHERE {column} = ? AND status IN ({_ACTIVE}) "
            "ORDER BY updated_at DESC, id LIMIT 1",
            (value,),
        ).fetchone()
        if row is not None:
            return str(row[0])
    return None


def active_workflow(
    conn: ReadConnection, issue_number: int | None = None, branch: str | None = None
) -> WorkflowBrief | None:
    """:func:`active_workflow_id`'s workflow with its last actions and commits."""
    workflow_id = active_workflow_id(conn, issue_number, branch)
    if workflow_id is None:
        return None
    row = conn.execute(
        "SELECT id, issue_number, branch, worktree, phase, status, retry_count, updated_at "
        "FROM workflows WHERE id = ?",
        (workflow_id,),
    ).fetchone()
    actions = conn.execute(
        "SELECT action, result FROM actions WHERE workflow_id = ? ORDER BY id DESC LIMIT ?",
        (workflow_id, RECENT),
    ).fetchall()
    commits = conn.execute(
        "SELECT sha, message FROM commits WHERE workflow_id = ? ORDER BY id DESC LIMIT ?",
        (workflow_id, RECENT),
    ).fetchall()
    return WorkflowBrief(
        id=str(row[0]),
        issue_number=int(row[1]),
        branch=str(row[2]),
        worktree=row[3],
        phase=str(row[4]),
        status=str(row[5]),
        retry_count=int(row[6] or 0),
        updated_at=parse_time(row[7]),
        actions=tuple(ActionBrief(str(a), str(r)) for a, r in reversed(actions)),
        commits=tuple(CommitBrief(str(s), str(m)) for s, m in reversed(commits)),
    )
