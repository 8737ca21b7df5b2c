"""Checkpoint tables (seed 004): workflows, actions, commits, milestones, baselines.

Children reference their parent with ON DELETE CASCADE (foreign keys are on).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from kgraph.db.models.base import Base, UTCDateTime, utcnow


class Workflow(Base):
    __tablename__ = "workflows"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    issue_number: Mapped[int] = mapped_column(Integer)
    branch: Mapped[str] = mapped_column(Text)
    worktree: Mapped[str | None] = mapped_column(Text)
    phase: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    retry_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        Index(None, "issue_number", "status"),
        Index(None, "branch"),
        Index(None, "status", "updated_at"),
    )


class Action(Base):
    __tablename__ = "actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workflow_id: Mapped[str] = mapped_column(
        ForeignKey("workflows.id", ondelete="CASCADE"), index=True
    )
    action: Mapped[str] = mapped_column(Text)
    result: Mapped[str] = mapped_column(String(16))
    # "metadata" is reserved by SQLAlchemy's declarative API; the column keeps the seed's name.
    metadata_: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Commit(Base):
    __tablename__ = "commits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workflow_id: Mapped[str] = mapped_column(
        ForeignKey("workflows.id", ondelete="CASCADE"), index=True
    )
    sha: Mapped[str] = mapped_column(String(64))
    message: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Milestone(Base):
    __tablename__ = "milestones"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(Text, index=True)
    github_milestone_number: Mapped[int | None] = mapped_column(Integer)
    phase: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Baseline(Base):
    __tablename__ = "baselines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    milestone_id: Mapped[str] = mapped_column(
        ForeignKey("milestones.id", ondelete="CASCADE"), index=True
    )
    lint_exit_code: Mapped[int | None] = mapped_column(Integer)
    lint_warnings: Mapped[int | None] = mapped_column(Integer)
    lint_errors: Mapped[int | None] = mapped_column(Integer)
    typecheck_exit_code: Mapped[int | None] = mapped_column(Integer)
    typecheck_errors: Mapped[int | None] = mapped_column(Integer)
    captured_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class MilestoneWorkflow(Base):
    __tablename__ = "milestone_workflows"

    milestone_id: Mapped[str] = mapped_column(
        ForeignKey("milestones.id", ondelete="CASCADE"), primary_key=True
    )
    workflow_id: Mapped[str] = mapped_column(
        ForeignKey("workflows.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    wave_number: Mapped[int] = mapped_column(Integer, default=1)
