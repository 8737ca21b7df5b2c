"""Milestones: several workflows coordinated in waves, with a lint/typecheck baseline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.engine import Connection

from kgraph.checkpoint.common import (
    ACTIVE_STATUSES,
    PHASES,
    STATUSES,
    check_choice,
    new_id,
    next_stamp,
)
from kgraph.db import Database
from kgraph.db.models import (
    Baseline,
    Milestone,
    MilestoneWorkflow,
    Workflow,
    isoformat,
    table_of,
    utcnow,
)
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.redact import redact

MILESTONES = table_of(Milestone)
BASELINES = table_of(Baseline)
LINKS = table_of(MilestoneWorkflow)
WORKFLOWS = table_of(Workflow)


@dataclass(frozen=True)
class BaselineRecord:
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


def _baseline_record(row: Row[Any]) -> BaselineRecord:
    return BaselineRecord(
        id=row.id,
        milestone_id=row.milestone_id,
        lint_exit_code=row.lint_exit_code,
        lint_warnings=row.lint_warnings,
        lint_errors=row.lint_errors,
        typecheck_exit_code=row.typecheck_exit_code,
        typecheck_errors=row.typecheck_errors,
        captured_at=row.captured_at,
    )


def _record(conn: Connection, row: Row[Any]) -> MilestoneRecord:
    links = conn.execute(
        select(
            LINKS.c.workflow_id,
            LINKS.c.wave_number,
            WORKFLOWS.c.issue_number,
            WORKFLOWS.c.status,
            WORKFLOWS.c.phase,
        )
        .join(WORKFLOWS, WORKFLOWS.c.id == LINKS.c.workflow_id)
        .where(LINKS.c.milestone_id == row.id)
        .order_by(LINKS.c.wave_number, WORKFLOWS.c.issue_number)
    )
    return MilestoneRecord(
        id=row.id,
        name=row.name,
        github_milestone_number=row.github_milestone_number,
        phase=row.phase,
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
        workflows=tuple(
            MilestoneWorkflowRecord(
                link.workflow_id, link.wave_number, link.issue_number, link.status, link.phase
            )
            for link in links
        ),
    )


def _row(conn: Connection, milestone_id: str) -> Row[Any]:
    row = conn.execute(select(MILESTONES).where(MILESTONES.c.id == milestone_id)).first()
    if row is None:
        raise NotFoundError(f"no milestone {milestone_id}")
    return row


def _fetch(conn: Connection, milestone_id: str) -> MilestoneRecord:
    return _record(conn, _row(conn, milestone_id))


def _change(conn: Connection, milestone_id: str, **values: Any) -> MilestoneRecord:
    row = _row(conn, milestone_id)
    conn.execute(
        update(MILESTONES)
        .where(MILESTONES.c.id == milestone_id)
        .values(updated_at=next_stamp(row.updated_at), **values)
    )
    return _fetch(conn, milestone_id)


def create_milestone(
    db: Database, name: str, github_number: int | None = None, phase: str = "planning"
) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")
    if not name.strip():
        raise InvalidValueError("milestone name must not be empty")
    name = redact(name, thorough=True)  # find_milestone looks it up the same way
    milestone_id = new_id("ms")

    def op(conn: Connection) -> MilestoneRecord:
        now = utcnow()
        conn.execute(
            insert(MILESTONES).values(
                id=milestone_id,
                name=name,
                github_milestone_number=github_number,
                phase=phase,
                status="running",
                created_at=now,
                updated_at=now,
            )
        )
        return _fetch(conn, milestone_id)

    return db.write(op)


def get_milestone(db: Database, milestone_id: str) -> MilestoneRecord:
    return db.read(lambda conn: _fetch(conn, milestone_id))


def find_milestone(db: Database, name: str) -> MilestoneRecord | None:
    """The active milestone with this name, else its most recent one, else None."""
    name = redact(name, thorough=True)

    def op(conn: Connection) -> MilestoneRecord | None:
        for statuses in (ACTIVE_STATUSES, STATUSES):
            row = conn.execute(
                select(MILESTONES)
                .where(MILESTONES.c.name == name, MILESTONES.c.status.in_(statuses))
                .order_by(MILESTONES.c.updated_at.desc())
                .limit(1)
            ).first()
            if row is not None:
                return _record(conn, row)
        return None

    return db.read(op)


def list_milestones(db: Database, status: str | None = None) -> list[MilestoneRecord]:
    if status is not None:
        check_choice(status, STATUSES, "status")
    query = select(MILESTONES).order_by(MILESTONES.c.updated_at.desc())
    if status is not None:
        query = query.where(MILESTONES.c.status == status)
    return db.read(lambda conn: [_record(conn, row) for row in conn.execute(query).all()])


def set_milestone_phase(db: Database, milestone_id: str, phase: str) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")
    return db.write(lambda conn: _change(conn, milestone_id, phase=phase))


def set_milestone_status(db: Database, milestone_id: str, status: str) -> MilestoneRecord:
    check_choice(status, STATUSES, "status")
    return db.write(lambda conn: _change(conn, milestone_id, status=status))


def add_workflow_to_milestone(
    db: Database, milestone_id: str, workflow_id: str, wave: int = 1
) -> MilestoneRecord:
    """Put a workflow in a milestone's wave (moving it if it is already in another wave)."""
    if wave < 1:
        raise InvalidValueError("--wave must be 1 or more")

    def op(conn: Connection) -> MilestoneRecord:
        _row(conn, milestone_id)
        if (
            conn.execute(select(WORKFLOWS.c.id).where(WORKFLOWS.c.id == workflow_id)).first()
            is None
        ):
            raise NotFoundError(f"no workflow {workflow_id}")
        key = (LINKS.c.milestone_id == milestone_id) & (LINKS.c.workflow_id == workflow_id)
        if conn.execute(select(LINKS.c.wave_number).where(key)).first() is None:
            conn.execute(
                insert(LINKS).values(
                    milestone_id=milestone_id, workflow_id=workflow_id, wave_number=wave
                )
            )
        else:
            conn.execute(update(LINKS).where(key).values(wave_number=wave))
        return _change(conn, milestone_id)

    return db.write(op)


def delete_milestone(db: Database, milestone_id: str) -> None:
    """Delete a milestone with its baselines and wave links (the workflows stay)."""

    def op(conn: Connection) -> None:
        _row(conn, milestone_id)
        conn.execute(delete(MILESTONES).where(MILESTONES.c.id == milestone_id))

    db.write(op)


def save_baseline(
    db: Database,
    milestone_id: str,
    lint_exit_code: int | None = None,
    lint_warnings: int | None = None,
    lint_errors: int | None = None,
    typecheck_exit_code: int | None = None,
    typecheck_errors: int | None = None,
) -> BaselineRecord:
    def op(conn: Connection) -> BaselineRecord:
        _row(conn, milestone_id)
        result = conn.execute(
            insert(BASELINES).values(
                milestone_id=milestone_id,
                lint_exit_code=lint_exit_code,
                lint_warnings=lint_warnings,
                lint_errors=lint_errors,
                typecheck_exit_code=typecheck_exit_code,
                typecheck_errors=typecheck_errors,
                captured_at=utcnow(),
            )
        )
        (baseline_id,) = result.inserted_primary_key or (None,)
        row = conn.execute(select(BASELINES).where(BASELINES.c.id == baseline_id)).one()
        return _baseline_record(row)

    return db.write(op)


def latest_baseline(db: Database, milestone_id: str) -> BaselineRecord:
    """The most recently saved baseline; NotFoundError when the milestone has none."""

    def op(conn: Connection) -> BaselineRecord:
        _row(conn, milestone_id)
        row = conn.execute(
            select(BASELINES)
            .where(BASELINES.c.milestone_id == milestone_id)
            .order_by(BASELINES.c.id.desc())
            .limit(1)
        ).first()
        if row is None:
            raise NotFoundError(f"no baseline for milestone {milestone_id}")
        return _baseline_record(row)

    return db.read(op)
