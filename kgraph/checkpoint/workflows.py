"""Workflows: one issue's execution state, with its action log and commits.

Every function takes an open :class:`~kgraph.db.Database`, runs one short transaction with
SQLAlchemy Core and returns immutable records, so callers (CLI, hooks, tests) hold no
database state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.engine import Connection

from kgraph.checkpoint.common import (
    ACTION_RESULTS,
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    PHASES,
    STATUSES,
    check_choice,
    new_id,
    next_stamp,
)
from kgraph.checkpoint.lookup import active_workflow_id
from kgraph.db import Database
from kgraph.db.models import Action, Commit, Workflow, isoformat, table_of, utcnow
from kgraph.db.reader import raw_connection
from kgraph.errors import InvalidValueError, NotFoundError

WORKFLOWS = table_of(Workflow)
ACTIONS = table_of(Action)
COMMITS = table_of(Commit)


@dataclass(frozen=True)
class ActionRecord:
    id: int
    action: str
    result: str
    metadata: dict[str, Any] | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "action": self.action,
            "result": self.result,
            "metadata": self.metadata,
            "created_at": isoformat(self.created_at),
        }


@dataclass(frozen=True)
class CommitRecord:
    id: int
    sha: str
    message: str
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sha": self.sha,
            "message": self.message,
            "created_at": isoformat(self.created_at),
        }


@dataclass(frozen=True)
class WorkflowRecord:
    id: str
    issue_number: int
    branch: str
    worktree: str | None
    phase: str
    status: str
    retry_count: int
    created_at: datetime
    updated_at: datetime
    actions: tuple[ActionRecord, ...]
    commits: tuple[CommitRecord, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "issue_number": self.issue_number,
            "branch": self.branch,
            "worktree": self.worktree,
            "phase": self.phase,
            "status": self.status,
            "retry_count": self.retry_count,
            "created_at": isoformat(self.created_at),
            "updated_at": isoformat(self.updated_at),
            "actions": [a.to_dict() for a in self.actions],
            "commits": [c.to_dict() for c in self.commits],
        }


def _assemble(conn: Connection, rows: Sequence[Row[Any]]) -> list[WorkflowRecord]:
    """Records for workflow rows, with their actions and commits (two queries in all)."""
    ids = [row.id for row in rows]
    actions: dict[str, list[ActionRecord]] = defaultdict(list)
    commits: dict[str, list[CommitRecord]] = defaultdict(list)
    if ids:
        for a in conn.execute(
            select(ACTIONS).where(ACTIONS.c.workflow_id.in_(ids)).order_by(ACTIONS.c.id)
        ):
            actions[a.workflow_id].append(
                ActionRecord(a.id, a.action, a.result, a.metadata, a.created_at)
            )
        for c in conn.execute(
            select(COMMITS).where(COMMITS.c.workflow_id.in_(ids)).order_by(COMMITS.c.id)
        ):
            commits[c.workflow_id].append(CommitRecord(c.id, c.sha, c.message, c.created_at))
    return [
        WorkflowRecord(
            id=row.id,
            issue_number=row.issue_number,
            branch=row.branch,
            worktree=row.worktree,
            phase=row.phase,
            status=row.status,
            retry_count=row.retry_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
            actions=tuple(actions[row.id]),
            commits=tuple(commits[row.id]),
        )
        for row in rows
    ]


def _row(conn: Connection, workflow_id: str) -> Row[Any]:
    row = conn.execute(select(WORKFLOWS).where(WORKFLOWS.c.id == workflow_id)).first()
    if row is None:
        raise NotFoundError(f"no workflow {workflow_id}")
    return row


def _fetch(conn: Connection, workflow_id: str) -> WorkflowRecord:
    return _assemble(conn, [_row(conn, workflow_id)])[0]


def _change(conn: Connection, workflow_id: str, **values: Any) -> WorkflowRecord:
    """Update a workflow's columns, moving updated_at; returns the new record."""
    row = _row(conn, workflow_id)
    conn.execute(
        update(WORKFLOWS)
        .where(WORKFLOWS.c.id == workflow_id)
        .values(updated_at=next_stamp(row.updated_at), **values)
    )
    return _fetch(conn, workflow_id)


def create_workflow(
    db: Database,
    issue_number: int,
    branch: str,
    worktree: str | None = None,
    phase: str = "research",
) -> WorkflowRecord:
    """Create a running workflow for ``issue_number`` on ``branch``."""
    check_choice(phase, PHASES, "phase")
    if not branch.strip():
        raise InvalidValueError("branch must not be empty")
    workflow_id = new_id("wf")

    def op(conn: Connection) -> WorkflowRecord:
        now = utcnow()
        conn.execute(
            insert(WORKFLOWS).values(
                id=workflow_id,
                issue_number=issue_number,
                branch=branch,
                worktree=worktree,
                phase=phase,
                status="running",
                retry_count=0,
                created_at=now,
                updated_at=now,
            )
        )
        return _fetch(conn, workflow_id)

    return db.write(op)


def get_workflow(db: Database, workflow_id: str) -> WorkflowRecord:
    """The workflow with its actions and commits; NotFoundError if there is none."""
    return db.read(lambda conn: _fetch(conn, workflow_id))


def _latest(conn: Connection, *conditions: Any) -> WorkflowRecord | None:
    row = conn.execute(
        select(WORKFLOWS).where(*conditions).order_by(WORKFLOWS.c.updated_at.desc()).limit(1)
    ).first()
    return None if row is None else _assemble(conn, [row])[0]


def _active(
    conn: Connection, issue_number: int | None, branch: str | None
) -> WorkflowRecord | None:
    """The active workflow as :func:`kgraph.checkpoint.lookup.active_workflow_id` picks it
    (the one selection the hooks use too)."""
    workflow_id = active_workflow_id(raw_connection(conn), issue_number, branch)
    return None if workflow_id is None else _fetch(conn, workflow_id)


def find_workflow(db: Database, issue_number: int) -> WorkflowRecord | None:
    """The active (running/paused) workflow for an issue, else its most recent one, else None."""

    def op(conn: Connection) -> WorkflowRecord | None:
        active = _active(conn, issue_number, None)
        return active or _latest(conn, WORKFLOWS.c.issue_number == issue_number)

    return db.read(op)


def find_workflow_for_branch(db: Database, branch: str) -> WorkflowRecord | None:
    """The most recently updated active workflow on ``branch``, else None."""
    return db.read(lambda conn: _active(conn, None, branch))


def list_workflows(
    db: Database, status: str | None = None, active: bool = False, limit: int | None = None
) -> list[WorkflowRecord]:
    """Workflows, most recently updated first, with their actions and commits."""
    if status is not None:
        check_choice(status, STATUSES, "status")
    query = select(WORKFLOWS).order_by(WORKFLOWS.c.updated_at.desc())
    if status is not None:
        query = query.where(WORKFLOWS.c.status == status)
    if active:
        query = query.where(WORKFLOWS.c.status.in_(ACTIVE_STATUSES))
    if limit is not None:
        query = query.limit(limit)
    return db.read(lambda conn: _assemble(conn, conn.execute(query).all()))


def set_phase(db: Database, workflow_id: str, phase: str) -> WorkflowRecord:
    check_choice(phase, PHASES, "phase")
    return db.write(lambda conn: _change(conn, workflow_id, phase=phase))


def set_status(db: Database, workflow_id: str, status: str) -> WorkflowRecord:
    """Set the status; a failed workflow set running again counts one more retry."""
    check_choice(status, STATUSES, "status")

    def op(conn: Connection) -> WorkflowRecord:
        row = _row(conn, workflow_id)
        retries = row.retry_count + (1 if row.status == "failed" and status == "running" else 0)
        return _change(conn, workflow_id, status=status, retry_count=retries)

    return db.write(op)


def log_action(
    db: Database,
    workflow_id: str,
    action: str,
    result: str,
    metadata: dict[str, Any] | None = None,
) -> WorkflowRecord:
    check_choice(result, ACTION_RESULTS, "result")
    if not action.strip():
        raise InvalidValueError("action must not be empty")

    def op(conn: Connection) -> WorkflowRecord:
        _row(conn, workflow_id)
        conn.execute(
            insert(ACTIONS).values(
                workflow_id=workflow_id,
                action=action,
                result=result,
                metadata=metadata,
                created_at=utcnow(),
            )
        )
        return _change(conn, workflow_id)

    return db.write(op)


def log_commit(db: Database, workflow_id: str, sha: str, message: str) -> WorkflowRecord:
    if not sha.strip():
        raise InvalidValueError("sha must not be empty")

    def op(conn: Connection) -> WorkflowRecord:
        _row(conn, workflow_id)
        conn.execute(
            insert(COMMITS).values(
                workflow_id=workflow_id, sha=sha, message=message, created_at=utcnow()
            )
        )
        return _change(conn, workflow_id)

    return db.write(op)


def delete_workflow(db: Database, workflow_id: str) -> None:
    """Delete a workflow; its actions, commits and milestone links go with it (cascade)."""

    def op(conn: Connection) -> None:
        _row(conn, workflow_id)
        conn.execute(delete(WORKFLOWS).where(WORKFLOWS.c.id == workflow_id))

    db.write(op)


def cleanup_workflows(
    db: Database, older_than_days: float = 30, dry_run: bool = False
) -> list[WorkflowRecord]:
    """Delete completed/failed workflows not updated for ``older_than_days``; returns them."""
    if older_than_days < 0:
        raise InvalidValueError("--older-than must be 0 or more days")
    cutoff = utcnow() - timedelta(days=older_than_days)

    def op(conn: Connection) -> list[WorkflowRecord]:
        rows = conn.execute(
            select(WORKFLOWS)
            .where(WORKFLOWS.c.status.in_(FINISHED_STATUSES), WORKFLOWS.c.updated_at < cutoff)
            .order_by(WORKFLOWS.c.updated_at)
        ).all()
        records = _assemble(conn, rows)
        if records and not dry_run:
            conn.execute(delete(WORKFLOWS).where(WORKFLOWS.c.id.in_([r.id for r in records])))
        return records

    return db.write(op)
