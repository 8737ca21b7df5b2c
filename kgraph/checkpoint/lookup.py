"""The active workflow checkpoint of an issue or branch: the lookup hooks and library share.

One implementation of "which workflow is this session continuing": the most recently
updated running/paused workflow of the issue, else of the branch
(:func:`active_workflow_id`, in kgraph.checkpoint.common so that the checkpoint commands
load it without this module's records). It runs on a DB-API connection (``sqlite3``, or
psycopg through kgraph.db.pgreader), so the session-start hook reads it without SQLAlchemy
and :func:`kgraph.checkpoint.find_workflow_for_branch` runs the same SQL. Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from kgraph.checkpoint.common import active_workflow_id
from kgraph.db.reader import ReadConnection, parse_time

__all__ = ["ActionBrief", "CommitBrief", "WorkflowBrief", "active_workflow", "active_workflow_id"]

# The checkpoint paragraph shows this many of the latest actions and commits.
RECENT = 5


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
