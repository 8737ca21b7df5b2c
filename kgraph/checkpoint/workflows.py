"""Workflows: one issue's execution state, with its action log and commits.

Every function takes an open :class:`~kgraph.db.Database`, runs one short transaction and
returns immutable records, so callers (CLI, hooks, tests) never hold ORM state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from kgraph.checkpoint.common import (
    ACTION_RESULTS,
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    PHASES,
    STATUSES,
    check_choice,
    new_id,
)
from kgraph.db import Database
from kgraph.db.models import Action, Commit, Workflow, isoformat, utcnow
from kgraph.errors import InvalidValueError, NotFoundError


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


def _record(row: Workflow) -> WorkflowRecord:
    return WorkflowRecord(
        id=row.id,
        issue_number=row.issue_number,
        branch=row.branch,
        worktree=row.worktree,
        phase=row.phase,
        status=row.status,
        retry_count=row.retry_count,
        created_at=row.created_at,
        updated_at=row.updated_at,
        actions=tuple(
            ActionRecord(a.id, a.action, a.result, a.metadata_, a.created_at) for a in row.actions
        ),
        commits=tuple(CommitRecord(c.id, c.sha, c.message, c.created_at) for c in row.commits),
    )


def _load(session: Session, workflow_id: str) -> Workflow:
    row = session.get(
        Workflow,
        workflow_id,
        options=[selectinload(Workflow.actions), selectinload(Workflow.commits)],
    )
    if row is None:
        raise NotFoundError(f"no workflow {workflow_id}")
    return row


def _touch(row: Workflow) -> None:
    row.updated_at = max(utcnow(), row.updated_at + timedelta(microseconds=1))


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

    def op(session: Session) -> WorkflowRecord:
        now = utcnow()
        row = Workflow(
            id=new_id("wf"),
            issue_number=issue_number,
            branch=branch,
            worktree=worktree,
            phase=phase,
            status="running",
            retry_count=0,
            created_at=now,
            updated_at=now,
            actions=[],
            commits=[],
        )
        session.add(row)
        session.flush()
        return _record(row)

    return db.write(op)


def get_workflow(db: Database, workflow_id: str) -> WorkflowRecord:
    """The workflow with its actions and commits; NotFoundError if there is none."""
    return db.read(lambda s: _record(_load(s, workflow_id)))


def find_workflow(db: Database, issue_number: int) -> WorkflowRecord | None:
    """The active (running/paused) workflow for an issue, else its most recent one, else None."""

    def op(session: Session) -> WorkflowRecord | None:
        for statuses in (ACTIVE_STATUSES, STATUSES):
            row = session.scalars(
                select(Workflow)
                .where(Workflow.issue_number == issue_number, Workflow.status.in_(statuses))
                .order_by(Workflow.updated_at.desc())
                .limit(1)
            ).first()
            if row is not None:
                return _record(_load(session, row.id))
        return None

    return db.read(op)


def find_workflow_for_branch(db: Database, branch: str) -> WorkflowRecord | None:
    """The most recently updated active workflow on ``branch``, else None."""

    def op(session: Session) -> WorkflowRecord | None:
        row = session.scalars(
            select(Workflow)
            .where(Workflow.branch == branch, Workflow.status.in_(ACTIVE_STATUSES))
            .order_by(Workflow.updated_at.desc())
            .limit(1)
        ).first()
        return None if row is None else _record(_load(session, row.id))

    return db.read(op)


def list_workflows(
    db: Database, status: str | None = None, active: bool = False, limit: int | None = None
) -> list[WorkflowRecord]:
    """Workflows, most recently updated first, with their actions and commits."""
    if status is not None:
        check_choice(status, STATUSES, "status")

    def op(session: Session) -> list[WorkflowRecord]:
        query = select(Workflow).options(
            selectinload(Workflow.actions), selectinload(Workflow.commits)
        )
        if status is not None:
            query = query.where(Workflow.status == status)
        if active:
            query = query.where(Workflow.status.in_(ACTIVE_STATUSES))
        query = query.order_by(Workflow.updated_at.desc())
        if limit is not None:
            query = query.limit(limit)
        return [_record(row) for row in session.scalars(query)]

    return db.read(op)


def set_phase(db: Database, workflow_id: str, phase: str) -> WorkflowRecord:
    check_choice(phase, PHASES, "phase")

    def op(session: Session) -> WorkflowRecord:
        row = _load(session, workflow_id)
        row.phase = phase
        _touch(row)
        return _record(row)

    return db.write(op)


def set_status(db: Database, workflow_id: str, status: str) -> WorkflowRecord:
    """Set the status; a failed workflow set running again counts one more retry."""
    check_choice(status, STATUSES, "status")

    def op(session: Session) -> WorkflowRecord:
        row = _load(session, workflow_id)
        if row.status == "failed" and status == "running":
            row.retry_count += 1
        row.status = status
        _touch(row)
        return _record(row)

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

    def op(session: Session) -> WorkflowRecord:
        row = _load(session, workflow_id)
        row.actions.append(Action(action=action, result=result, metadata_=metadata))
        _touch(row)
        session.flush()
        return _record(row)

    return db.write(op)


def log_commit(db: Database, workflow_id: str, sha: str, message: str) -> WorkflowRecord:
    if not sha.strip():
        raise InvalidValueError("sha must not be empty")

    def op(session: Session) -> WorkflowRecord:
        row = _load(session, workflow_id)
        row.commits.append(Commit(sha=sha, message=message))
        _touch(row)
        session.flush()
        return _record(row)

    return db.write(op)


def delete_workflow(db: Database, workflow_id: str) -> None:
    """Delete a workflow; its actions, commits and milestone links go with it."""

    def op(session: Session) -> None:
        session.delete(_load(session, workflow_id))

    db.write(op)


def cleanup_workflows(
    db: Database, older_than_days: float = 30, dry_run: bool = False
) -> list[WorkflowRecord]:
    """Delete completed/failed workflows not updated for ``older_than_days``; returns them."""
    if older_than_days < 0:
        raise InvalidValueError("--older-than must be 0 or more days")
    cutoff = utcnow() - timedelta(days=older_than_days)

    def op(session: Session) -> list[WorkflowRecord]:
        rows = list(
            session.scalars(
                select(Workflow)
                .options(selectinload(Workflow.actions), selectinload(Workflow.commits))
                .where(Workflow.status.in_(FINISHED_STATUSES), Workflow.updated_at < cutoff)
                .order_by(Workflow.updated_at)
            )
        )
        records = [_record(row) for row in rows]
        if not dry_run:
            for row in rows:
                session.delete(row)
        return records

    return db.write(op)
