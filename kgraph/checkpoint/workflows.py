"""Workflows: one issue's execution state, with its action log and commits.

Every function takes the database, runs one short transaction and returns immutable
records, so callers (CLI, API, MCP server, tests) hold no database state. The database is
anything with ``read_raw``/``write_raw`` (kgraph.db.Transactions): a kgraph.db.Database
under SQLAlchemy, or the kgraph.db.DirectDatabase a checkpoint command opens on the driver
alone. The SQL is plain, with ``?`` placeholders, on the DB-API connection either way
(PostgreSQL's through kgraph.db.pgreader), because a skill runs ``kgraph workflow
log-action`` many times a session and importing SQLAlchemy would cost it ten times the
write; one statement per query serves every caller.

Text an agent or person wrote is redacted before it is stored: actions, their metadata and
commit messages, branch and worktree names thoroughly (kgraph.redact). Lookups by branch
(session-start's, on a hook's budget) apply the fast pass, which agrees with the thorough
one on every branch name that holds no secret.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kgraph.checkpoint.common import (
    ACTION_RESULTS,
    ACTIVE_STATUSES,
    FINISHED_STATUSES,
    PHASES,
    STATUSES,
    active_workflow_id,
    check_choice,
    new_id,
    next_stamp,
    stored_time,
)
from kgraph.db.direct import Transactions
from kgraph.db.reader import ReadConnection, chunked, db_time, isoformat, marks
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.redact import redact, redact_data

_COLUMNS = "id, issue_number, branch, worktree, phase, status, retry_count, created_at, updated_at"
_SELECT = f"SELECT {_COLUMNS} FROM workflows"


def _quoted(values: Sequence[str]) -> str:
    return ",".join(f"'{v}'" for v in values)


@dataclass(frozen=True)
class ActionRecord:
    """One entry of a workflow's audit log: what the agent did and how it went, with the
    JSON object given with it (all redacted)."""

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
    """A commit made for a workflow: its sha and message (redacted)."""

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
    """A workflow with its whole action log and commits, oldest first: what a skill reads
    back to resume after compaction. Immutable, so no caller holds database state."""

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


def _assemble(conn: ReadConnection, rows: Sequence[Any]) -> list[WorkflowRecord]:
    """Records for workflow rows (``_COLUMNS``), with their actions and commits (two
    queries per 900 workflows)."""
    actions: dict[str, list[ActionRecord]] = defaultdict(list)
    commits: dict[str, list[CommitRecord]] = defaultdict(list)
    for ids in chunked([str(row[0]) for row in rows]):
        where = f"WHERE workflow_id IN ({marks(len(ids))}) ORDER BY id"
        for a in conn.execute(
            f"SELECT id, workflow_id, action, result, metadata, created_at FROM actions {where}",
            tuple(ids),
        ):
            metadata = json.loads(a[4]) if isinstance(a[4], str) else a[4]
            actions[a[1]].append(ActionRecord(a[0], a[2], a[3], metadata, stored_time(a[5])))
        for c in conn.execute(
            f"SELECT id, workflow_id, sha, message, created_at FROM commits {where}", tuple(ids)
        ):
            commits[c[1]].append(CommitRecord(c[0], c[2], c[3], stored_time(c[4])))
    return [
        WorkflowRecord(
            id=row[0],
            issue_number=row[1],
            branch=row[2],
            worktree=row[3],
            phase=row[4],
            status=row[5],
            retry_count=row[6],
            created_at=stored_time(row[7]),
            updated_at=stored_time(row[8]),
            actions=tuple(actions[row[0]]),
            commits=tuple(commits[row[0]]),
        )
        for row in rows
    ]


def _row(conn: ReadConnection, workflow_id: str) -> Any:
    row = conn.execute(f"{_SELECT} WHERE id = ?", (workflow_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no workflow {workflow_id}")
    return row


def _fetch(conn: ReadConnection, workflow_id: str) -> WorkflowRecord:
    return _assemble(conn, [_row(conn, workflow_id)])[0]


def _change(conn: ReadConnection, row: Any, **values: Any) -> WorkflowRecord:
    """Update the workflow of ``row`` (as read in this transaction), moving updated_at;
    returns the new record."""
    values["updated_at"] = db_time(next_stamp(stored_time(row[8])))
    assignments = ", ".join(f"{column} = ?" for column in values)
    conn.execute(f"UPDATE workflows SET {assignments} WHERE id = ?", (*values.values(), row[0]))
    return _fetch(conn, row[0])


def create_workflow(
    db: Transactions,
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
    branch = redact(branch, thorough=True)
    worktree = redact(worktree, thorough=True) if worktree else worktree

    def op(conn: ReadConnection) -> WorkflowRecord:
        now = db_time(datetime.now(UTC))
        conn.execute(
            f"INSERT INTO workflows ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'running', 0, ?, ?)",
            (workflow_id, issue_number, branch, worktree, phase, now, now),
        )
        return _fetch(conn, workflow_id)

    return db.write_raw(op)


def get_workflow(db: Transactions, workflow_id: str) -> WorkflowRecord:
    """The workflow with its actions and commits; NotFoundError if there is none."""
    return db.read_raw(lambda conn: _fetch(conn, workflow_id))


def find_workflow(db: Transactions, issue_number: int) -> WorkflowRecord | None:
    """The active (running/paused) workflow for an issue, as the hooks pick it
    (kgraph.checkpoint.lookup), else its most recent one, else None."""

    def op(conn: ReadConnection) -> WorkflowRecord | None:
        active = active_workflow_id(conn, issue_number, None)
        if active is not None:
            return _fetch(conn, active)
        rows = conn.execute(
            f"{_SELECT} WHERE issue_number = ? ORDER BY updated_at DESC, id LIMIT 1",
            (issue_number,),
        ).fetchall()
        return _assemble(conn, rows)[0] if rows else None

    return db.read_raw(op)


def find_workflow_for_branch(db: Transactions, branch: str) -> WorkflowRecord | None:
    """The most recently updated active workflow on ``branch``, else None."""

    def op(conn: ReadConnection) -> WorkflowRecord | None:
        workflow_id = active_workflow_id(conn, None, redact(branch))
        return None if workflow_id is None else _fetch(conn, workflow_id)

    return db.read_raw(op)


def list_workflows(
    db: Transactions, status: str | None = None, active: bool = False, limit: int | None = None
) -> list[WorkflowRecord]:
    """Workflows, most recently updated first, with their actions and commits."""
    conditions: list[str] = []
    params: list[Any] = []
    if status is not None:
        conditions.append("status = ?")
        params.append(check_choice(status, STATUSES, "status"))
    if active:
        conditions.append(f"status IN ({_quoted(ACTIVE_STATUSES)})")
    sql = _SELECT + (f" WHERE {' AND '.join(conditions)}" if conditions else "")
    sql += " ORDER BY updated_at DESC, id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return db.read_raw(lambda conn: _assemble(conn, conn.execute(sql, tuple(params)).fetchall()))


def set_phase(db: Transactions, workflow_id: str, phase: str) -> WorkflowRecord:
    check_choice(phase, PHASES, "phase")
    return db.write_raw(lambda conn: _change(conn, _row(conn, workflow_id), phase=phase))


def set_status(db: Transactions, workflow_id: str, status: str) -> WorkflowRecord:
    """Set the status; a failed workflow set running again counts one more retry."""
    check_choice(status, STATUSES, "status")

    def op(conn: ReadConnection) -> WorkflowRecord:
        row = _row(conn, workflow_id)
        retries = row[6] + (1 if row[5] == "failed" and status == "running" else 0)
        return _change(conn, row, status=status, retry_count=retries)

    return db.write_raw(op)


def log_action(
    db: Transactions,
    workflow_id: str,
    action: str,
    result: str,
    metadata: dict[str, Any] | None = None,
) -> WorkflowRecord:
    check_choice(result, ACTION_RESULTS, "result")
    if not action.strip():
        raise InvalidValueError("action must not be empty")
    action = redact(action, thorough=True)
    stored = json.dumps(redact_data(metadata, thorough=True) if metadata is not None else None)

    def op(conn: ReadConnection) -> WorkflowRecord:
        row = _row(conn, workflow_id)
        conn.execute(
            "INSERT INTO actions (workflow_id, action, result, metadata, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (workflow_id, action, result, stored, db_time(datetime.now(UTC))),
        )
        return _change(conn, row)

    return db.write_raw(op)


def log_commit(db: Transactions, workflow_id: str, sha: str, message: str) -> WorkflowRecord:
    if not sha.strip():
        raise InvalidValueError("sha must not be empty")
    sha = redact(sha, thorough=True)
    message = redact(message, thorough=True)

    def op(conn: ReadConnection) -> WorkflowRecord:
        row = _row(conn, workflow_id)
        conn.execute(
            "INSERT INTO commits (workflow_id, sha, message, created_at) VALUES (?, ?, ?, ?)",
            (workflow_id, sha, message, db_time(datetime.now(UTC))),
        )
        return _change(conn, row)

    return db.write_raw(op)


def delete_workflow(db: Transactions, workflow_id: str) -> None:
    """Delete a workflow; its actions, commits and milestone links go with it (cascade)."""

    def op(conn: ReadConnection) -> None:
        _row(conn, workflow_id)
        conn.execute("DELETE FROM workflows WHERE id = ?", (workflow_id,))

    db.write_raw(op)


def cleanup_workflows(
    db: Transactions, older_than_days: float = 30, dry_run: bool = False
) -> list[WorkflowRecord]:
    """Delete completed/failed workflows not updated for ``older_than_days``; returns them."""
    if older_than_days < 0:
        raise InvalidValueError("--older-than must be 0 or more days")
    cutoff = db_time(datetime.now(UTC) - timedelta(days=older_than_days))

    def op(conn: ReadConnection) -> list[WorkflowRecord]:
        rows = conn.execute(
            f"{_SELECT} WHERE status IN ({_quoted(FINISHED_STATUSES)}) AND updated_at < ? "
            "ORDER BY updated_at, id",
            (cutoff,),
        ).fetchall()
        records = _assemble(conn, rows)
        if not dry_run:
            for ids in chunked([r.id for r in records]):
                conn.execute(f"DELETE FROM workflows WHERE id IN ({marks(len(ids))})", tuple(ids))
        return records

    return db.write_raw(op)
