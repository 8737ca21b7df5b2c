"""Milestones: several workflows coordinated in waves, with a lint/typecheck baseline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from kgraph.checkpoint.common import ACTIVE_STATUSES, PHASES, STATUSES, check_choice, new_id
from kgraph.db import Database
from kgraph.db.models import Baseline, Milestone, MilestoneWorkflow, Workflow, isoformat, utcnow
from kgraph.errors import InvalidValueError, NotFoundError


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


def _baseline_record(row: Baseline) -> BaselineRecord:
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


def _record(row: Milestone) -> MilestoneRecord:
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
                workflow_id=link.workflow_id,
                wave_number=link.wave_number,
                issue_number=link.workflow.issue_number,
                status=link.workflow.status,
                phase=link.workflow.phase,
            )
            for link in row.workflow_links
        ),
    )


def _load(session: Session, milestone_id: str) -> Milestone:
    row = session.get(
        Milestone,
        milestone_id,
        options=[selectinload(Milestone.workflow_links).selectinload(MilestoneWorkflow.workflow)],
    )
    if row is None:
        raise NotFoundError(f"no milestone {milestone_id}")
    return row


def _touch(row: Milestone) -> None:
    row.updated_at = max(utcnow(), row.updated_at + timedelta(microseconds=1))


def create_milestone(
    db: Database, name: str, github_number: int | None = None, phase: str = "planning"
) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")
    if not name.strip():
        raise InvalidValueError("milestone name must not be empty")

    def op(session: Session) -> MilestoneRecord:
        now = utcnow()
        row = Milestone(
            id=new_id("ms"),
            name=name,
            github_milestone_number=github_number,
            phase=phase,
            status="running",
            created_at=now,
            updated_at=now,
            workflow_links=[],
        )
        session.add(row)
        session.flush()
        return _record(row)

    return db.write(op)


def get_milestone(db: Database, milestone_id: str) -> MilestoneRecord:
    return db.read(lambda s: _record(_load(s, milestone_id)))


def find_milestone(db: Database, name: str) -> MilestoneRecord | None:
    """The active milestone with this name, else its most recent one, else None."""

    def op(session: Session) -> MilestoneRecord | None:
        for statuses in (ACTIVE_STATUSES, STATUSES):
            row = session.scalars(
                select(Milestone)
                .where(Milestone.name == name, Milestone.status.in_(statuses))
                .order_by(Milestone.updated_at.desc())
                .limit(1)
            ).first()
            if row is not None:
                return _record(_load(session, row.id))
        return None

    return db.read(op)


def list_milestones(db: Database, status: str | None = None) -> list[MilestoneRecord]:
    if status is not None:
        check_choice(status, STATUSES, "status")

    def op(session: Session) -> list[MilestoneRecord]:
        query = select(Milestone).options(
            selectinload(Milestone.workflow_links).selectinload(MilestoneWorkflow.workflow)
        )
        if status is not None:
            query = query.where(Milestone.status == status)
        return [_record(r) for r in session.scalars(query.order_by(Milestone.updated_at.desc()))]

    return db.read(op)


def set_milestone_phase(db: Database, milestone_id: str, phase: str) -> MilestoneRecord:
    check_choice(phase, PHASES, "phase")

    def op(session: Session) -> MilestoneRecord:
        row = _load(session, milestone_id)
        row.phase = phase
        _touch(row)
        return _record(row)

    return db.write(op)


def set_milestone_status(db: Database, milestone_id: str, status: str) -> MilestoneRecord:
    check_choice(status, STATUSES, "status")

    def op(session: Session) -> MilestoneRecord:
        row = _load(session, milestone_id)
        row.status = status
        _touch(row)
        return _record(row)

    return db.write(op)


def add_workflow_to_milestone(
    db: Database, milestone_id: str, workflow_id: str, wave: int = 1
) -> MilestoneRecord:
    """Put a workflow in a milestone's wave (moving it if it is already in another wave)."""
    if wave < 1:
        raise InvalidValueError("--wave must be 1 or more")

    def op(session: Session) -> MilestoneRecord:
        row = _load(session, milestone_id)
        if session.get(Workflow, workflow_id) is None:
            raise NotFoundError(f"no workflow {workflow_id}")
        link = session.get(MilestoneWorkflow, (milestone_id, workflow_id))
        if link is None:
            session.add(
                MilestoneWorkflow(
                    milestone_id=milestone_id, workflow_id=workflow_id, wave_number=wave
                )
            )
        else:
            link.wave_number = wave
        _touch(row)
        session.flush()
        session.expire(row)
        return _record(_load(session, milestone_id))

    return db.write(op)


def delete_milestone(db: Database, milestone_id: str) -> None:
    """Delete a milestone with its baselines and wave links (the workflows stay)."""
    db.write(lambda s: s.delete(_load(s, milestone_id)))


def save_baseline(
    db: Database,
    milestone_id: str,
    lint_exit_code: int | None = None,
    lint_warnings: int | None = None,
    lint_errors: int | None = None,
    typecheck_exit_code: int | None = None,
    typecheck_errors: int | None = None,
) -> BaselineRecord:
    def op(session: Session) -> BaselineRecord:
        _load(session, milestone_id)
        row = Baseline(
            milestone_id=milestone_id,
            lint_exit_code=lint_exit_code,
            lint_warnings=lint_warnings,
            lint_errors=lint_errors,
            typecheck_exit_code=typecheck_exit_code,
            typecheck_errors=typecheck_errors,
        )
        session.add(row)
        session.flush()
        return _baseline_record(row)

    return db.write(op)


def latest_baseline(db: Database, milestone_id: str) -> BaselineRecord:
    """The most recently saved baseline; NotFoundError when the milestone has none."""

    def op(session: Session) -> BaselineRecord:
        _load(session, milestone_id)
        row = session.scalars(
            select(Baseline)
            .where(Baseline.milestone_id == milestone_id)
            .order_by(Baseline.id.desc())
            .limit(1)
        ).first()
        if row is None:
            raise NotFoundError(f"no baseline for milestone {milestone_id}")
        return _baseline_record(row)

    return db.read(op)
