"""Session tables: per-session capture state, and the metrics of seed 004."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from kgraph.db.models.base import Base, UTCDateTime, utcnow


class Session(Base):
    """One Claude Code session as kgraph saw it: where it started and how far it was captured."""

    __tablename__ = "sessions"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    cwd: Mapped[str | None] = mapped_column(Text)
    transcript_path: Mapped[str | None] = mapped_column(Text)
    branch: Mapped[str | None] = mapped_column(Text)
    issue_number: Mapped[int | None] = mapped_column(Integer)
    head_at_start: Mapped[str | None] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Capture watermark: bytes of the transcript already captured, and when.
    transcript_offset: Mapped[int] = mapped_column(Integer, default=0)
    captured_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    compaction_summary: Mapped[str | None] = mapped_column(Text)
    # Entity ids injected into this session's context (never injected twice).
    injected_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    # Session facts that are not knowledge (trivial commits, files touched, ...).
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    __table_args__ = (Index(None, "started_at"),)


class ContextMetric(Base):
    __tablename__ = "context_metrics"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), unique=True)
    issue_number: Mapped[int | None] = mapped_column(Integer)
    files_read: Mapped[int] = mapped_column(Integer, default=0)
    files_edited: Mapped[int] = mapped_column(Integer, default=0)
    compacted: Mapped[int] = mapped_column(Integer, default=0)
    duration_minutes: Mapped[int | None] = mapped_column(Integer)
    review_findings: Mapped[str | None] = mapped_column(Text)
    learnings_injected: Mapped[int] = mapped_column(Integer, default=0)
    learnings_captured: Mapped[int] = mapped_column(Integer, default=0)
    # Injected items about files the session then read or edited.
    uptake: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class GraphQuery(Base):
    __tablename__ = "graph_queries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str | None] = mapped_column(String(64))
    workflow_id: Mapped[str | None] = mapped_column(String(32))
    query_type: Mapped[str] = mapped_column(String(32))
    query_params: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    result_count: Mapped[int] = mapped_column(Integer, default=0)
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index(None, "query_type", "created_at"),)
