"""Milestones: several workflows coordinated in waves, with a lint/typecheck baseline.

Written as kgraph.checkpoint.workflows is, and for the same reason: plain SQL on the
DB-API connection of any kgraph.db.Transactions, so the ``kgraph milestone`` commands run
the library's statements without importing SQLAlchemy (kgraph.db.direct).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kgraph.checkpoint.common import (
    ACTIVE_STATUSES,
    PHASES,
    STATUSES,
    check_choice,
    new_id,
    next_stamp,
    stored_time,
)
from kgraph.db.direct import Transactions
from kgraph.db.reader import ReadConnection, chunked, db_time, isoformat, marks
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.redact import redact

_COLUMNS = "id, name, github_milestone_number, phase, status, created_at, updated_at"
_SELECT = f"SELECT {_COLUMNS} FROM milestones"
_BASELINE_COLUMNS = (
    "id, milestone_id, lint_exit_code, lint_warnings, lint_errors, typecheck_exit_code, "
    "typecheck_errors, captured_at"
)


@dataclass(frozen=True)
class BaselineRecord:
    """Lint and typecheck results saved before a milestone starts, so its end can be
    compared with its start."""

    id: int
    milestone_id: str
    lint_exit_code: int | None
    lint_warnings: int | None
    lint_errors: int | None
    typecheck_exit_code: int | None
    typecheck_errors: int | None
    captured_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "milestone_id": self.milestone_id,
            "lint_exit_code": self.lint_exit_code,
            "lint_warnings": self.lint_warnings,
            "lint_errors": self.lint_errors,
            "typecheck_exit_code": self.typecheck_exit_code,
            "typecheck_errors": self.typecheck_errors,
            "captured_at": isoformat(self.captured_at),
        }


@dataclass(frozen=True)
class MilestoneWorkflowRecord:
    """A workflow in a milestone's wave, with the state a coordinator looks at."""

    workflow_id: str
    wave_number: int
    issue_number: int
    status: str
    phase: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "workflow_id": self.workflow_id,
            "wave_number": self.wave_number,
            "issue_number": self.issue_number,
            "status": self.status,
            "phase": self.phase,
        }


@dataclass(frozen=True)
class MilestoneRecord:
    """A milestone with its workflows by wave, then issue. Immutable, as WorkflowRecord."""

    id: str
    name: str
    github_milestone_number: int | None
    phase: str
    status: str
    created_at: datetime
    updated_at: datetime
    workflows: tuple[MilestoneWorkflowRecord, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "github_milestone_number": self.github_milestone_number,
            "phase": self.phase,
            "status": self.status,
            "created_at": isoformat(self.created_at),
            "updated_at": isoformat(self.updated_at),
            "workflows": [w.to_dict() for w in self.workflows],
        }


def _baseline_record(row: Any) -> BaselineRecord:
    """The record of a row of ``_BASELINE_COLUMNS``."""
    return BaselineRecord(
        id=row[0],
        milestone_id=row[1],
        lint_exit_code=row[2],
        lint_warnings=row[3],
        lint_errors=row[4],
        typecheck_exit_code=row[5],
        typecheck_errors=row[6],
        captured_at=stored_time(row[7]),
    )


def _assemble(conn: ReadConnection, rows: Sequence[Any]) -> list[MilestoneRecord]:
    """Records for milestone rows (``_COLUMNS``) with their workflows, by wave then issue."""
    links: dict[str, list[MilestoneWorkflowRecord]] = defaultdict(list)
    for ids in chunked([str(row[0]) for row in rows]):
        for link in conn.execute(
            "SELECT l.milestone_id, l.workflow_id, l.wave_number, w.issue_number, w.status, "
            "w.phase FROM milestone_workflows l JOIN workflows w ON w.id = l.workflow_id "
            f"WHERE l.milestone_id IN ({marks(len(ids))}) "
            "ORDER BY l.wave_number, w.issue_number, l.workflow_id",
            tuple(ids),
        ):
            links[link[0]].append(MilestoneWorkflowRecord(*link[1:]))
    return [
        MilestoneRecord(
            id=row[0],
            name=row[1],
            github_milestone_number=row[2],
            phase=row[3],
            status=row[4],
            created_at=stored_time(row[5]),
            updated_at=stored_time(row[6]),
            workflows=tuple(links[row[0]]),
        )
        for row in rows
    ]


def _row(conn: ReadConnection, milestone_id: str) -> Any:
    row = conn.execute(f"{_SELECT} WHERE id = ?", (milestone_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no milestone {milestone_id}")
    return row


def _fetch(conn: ReadConnection, milestone_id: str) -> MilestoneRecord:
    return _assemble(conn, [_row(conn, milestone_id)])[0]


def _change(conn: ReadConnection, row: Any, **values: Any) -> MilestoneRecord:
    """Update the milestone of ``row`` (read in this transaction), moving updated_at."""
    values["updated_at"] = db_time(next_stamp(stored_time(row[6])))
    assignments = ", ".join(f"{column} = ?" for column in values)
    conn.execute(f"UPDATE milestones SET {assignments} WHERE id = ?", (*values.values(), row[0]))
    return _fetch(conn, row[0])


def create_milestone(
    db: Transactions, name: str, github_number: int | None = None, phase: str = "planning"
) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")
    if not name.strip():
        raise InvalidValueError("milestone name must not be empty")
    name = redact(name, thorough=True)  # find_milestone looks it up the same way
    milestone_id = new_id("ms")

    def op(conn: ReadConnection) -> MilestoneRecord:
        now = db_time(datetime.now(UTC))
        conn.execute(
            f"INSERT INTO milestones ({_COLUMNS}) VALUES (?, ?, ?, ?, 'running', ?, ?)",
            (milestone_id, name, github_number, phase, now, now),
        )
        return _fetch(conn, milestone_id)

    return db.write_raw(op)


def get_milestone(db: Transactions, milestone_id: str) -> MilestoneRecord:
    return db.read_raw(lambda conn: _fetch(conn, milestone_id))


def find_milestone(db: Transactions, name: str) -> MilestoneRecord | None:
    """The active milestone with this name, else its most recent one, else None."""
    name = redact(name, thorough=True)

    def op(conn: ReadConnection) -> MilestoneRecord | None:
        for statuses in (ACTIVE_STATUSES, STATUSES):
            rows = conn.execute(
                f"{_SELECT} WHERE name = ? AND status IN ({marks(len(statuses))}) "
                "ORDER BY updated_at DESC, id LIMIT 1",
                (name, *statuses),
            ).fetchall()
            if rows:
                return _assemble(conn, rows)[0]
        return None

    return db.read_raw(op)


def list_milestones(db: Transactions, status: str | None = None) -> list[MilestoneRecord]:
    if status is not None:
        check_choice(status, STATUSES, "status")
    where, params = (" WHERE status = ?", (status,)) if status is not None else ("", ())
    sql = f"{_SELECT}{where} ORDER BY updated_at DESC, id"
    return db.read_raw(lambda conn: _assemble(conn, conn.execute(sql, params).fetchall()))


def set_milestone_phase(db: Transactions, milestone_id: str, phase: str) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")
    return db.write_raw(lambda conn: _change(conn, _row(conn, milestone_id), phase=phase))


def set_milestone_status(db: Transactions, milestone_id: str, status: str) -> MilestoneRecord:
    check_choice(status, STATUSES, "status")
    return db.write_raw(lambda conn: _change(conn, _row(conn, milestone_id), status=status))


def add_workflow_to_milestone(
    db: Transactions, milestone_id: str, workflow_id: str, wave: int = 1
) -> MilestoneRecord:
    """Put a workflow in a milestone's wave (moving it if it is already in another wave)."""
    if wave < 1:
        raise InvalidValueError("--wave must be 1 or more")

    def op(conn: ReadConnection) -> MilestoneRecord:
        row = _row(conn, milestone_id)
        if conn.execute("SELECT 1 FROM workflows WHERE id = ?", (workflow_id,)).fetchone() is None:
            raise NotFoundError(f"no workflow {workflow_id}")
        key = (milestone_id, workflow_id)
        where = "WHERE milestone_id = ? AND workflow_id = ?"
        if conn.execute(f"SELECT 1 FROM milestone_workflows {where}", key).fetchone() is None:
            conn.execute(
                "INSERT INTO milestone_workflows (milestone_id, workflow_id, wave_number) "
                "VALUES (?, ?, ?)",
                (*key, wave),
            )
        else:
            conn.execute(f"UPDATE milestone_workflows SET wave_number = ? {where}", (wave, *key))
        return _change(conn, row)

    return db.write_raw(op)


def delete_milestone(db: Transactions, milestone_id: str) -> None:
    """Delete a milestone with its baselines and wave links (the workflows stay)."""

    def op(conn: ReadConnection) -> None:
        _row(conn, milestone_id)
        conn.execute("DELETE FROM milestones WHERE id = ?", (milestone_id,))

    db.write_raw(op)


def _latest_baseline(conn: ReadConnection, milestone_id: str) -> Any:
    return conn.execute(
        f"SELECT {_BASELINE_COLUMNS} FROM baselines WHERE milestone_id = ? "
        "ORDER BY id DESC LIMIT 1",
        (milestone_id,),
    ).fetchone()


def save_baseline(
    db: Transactions,
    milestone_id: str,
    lint_exit_code: int | None = None,
    lint_warnings: int | None = None,
    lint_errors: int | None = None,
    typecheck_exit_code: int | None = None,
    typecheck_errors: int | None = None,
) -> BaselineRecord:
    def op(conn: ReadConnection) -> BaselineRecord:
        _row(conn, milestone_id)
        conn.execute(
            f"INSERT INTO baselines ({_BASELINE_COLUMNS.removeprefix('id, ')}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                milestone_id,
                lint_exit_code,
                lint_warnings,
                lint_errors,
                typecheck_exit_code,
                typecheck_errors,
                db_time(datetime.now(UTC)),
            ),
        )
        # The write lock is held until commit, so the newest baseline is this one (read
        # back rather than RETURNING, which SQLite has only since 3.35).
        return _baseline_record(_latest_baseline(conn, milestone_id))

    return db.write_raw(op)


def latest_baseline(db: Transactions, milestone_id: str) -> BaselineRecord:
    """The most recently saved baseline; NotFoundError when the milestone has none."""

    def op(conn: ReadConnection) -> BaselineRecord:
        _row(conn, milestone_id)
        row = _latest_baseline(conn, milestone_id)
        if row is None:
            raise NotFoundError(f"no baseline for milestone {milestone_id}")
        return _baseline_record(row)

    return db.read_raw(op)
