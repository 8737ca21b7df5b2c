"""``context_metrics``: per-session numbers that tell whether kgraph helps, and their summary.

Per session: learnings injected and captured, files read and edited, compactions, duration,
and **uptake** — how many injected items were about files the session then read or edited.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from kgraph.capture.sessions import get_session
from kgraph.db import Database
from kgraph.db.models import ContextMetric, GraphQuery, Session, isoformat, table_of, utcnow

METRICS = table_of(ContextMetric)
SESSIONS = table_of(Session)
GRAPH_QUERIES = table_of(GraphQuery)


@dataclass(frozen=True)
class SessionMetrics:
    session_id: str
    issue_number: int | None
    learnings_injected: int
    learnings_captured: int
    files_read: int
    files_edited: int
    compacted: int
    duration_minutes: int | None
    uptake: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _minutes(start: Any, end: Any) -> int | None:
    def parse(value: Any) -> datetime | None:
        if isinstance(value, datetime):
            return value
        if isinstance(value, str) and value:
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                return None
        return None

    first, last = parse(start), parse(end)
    if first is None or last is None or first.tzinfo is None or last.tzinfo is None:
        return None
    return max(0, round((last - first).total_seconds() / 60))


def _injected_files(db: Database, ids: tuple[str, ...]) -> dict[str, set[str]]:
    from kgraph.errors import NotFoundError
    from kgraph.knowledge.records import get_item

    files: dict[str, set[str]] = {}
    for entity_id in ids:
        try:
            files[entity_id] = set(get_item(db, entity_id).files)
        except NotFoundError:
            continue
    return files


def update_session_metrics(db: Database, session_id: str) -> SessionMetrics:
    """Recompute and store the session's metrics row from its session record."""
    record = get_session(db, session_id)
    data = record.data
    read = set(data.get("files_read") or [])
    edited = set(data.get("files_edited") or [])
    touched = read | edited
    injected = _injected_files(db, record.injected_ids)
    uptake = sum(1 for files in injected.values() if files & touched)
    duration = _minutes(data.get("first_ts"), data.get("last_ts"))
    if duration is None and record.ended_at is not None:
        duration = _minutes(record.started_at, record.ended_at)
    metrics = SessionMetrics(
        session_id=session_id,
        issue_number=record.issue_number,
        learnings_injected=len(record.injected_ids),
        learnings_captured=len(data.get("captured_ids") or []),
        files_read=len(read),
        files_edited=len(edited),
        compacted=len(data.get("compactions") or []),
        duration_minutes=duration,
        uptake=uptake,
    )

    values = {
        "issue_number": metrics.issue_number,
        "learnings_injected": metrics.learnings_injected,
        "learnings_captured": metrics.learnings_captured,
        "files_read": metrics.files_read,
        "files_edited": metrics.files_edited,
        "compacted": metrics.compacted,
        "duration_minutes": metrics.duration_minutes,
        "uptake": metrics.uptake,
    }

    def op(conn: Connection) -> None:
        found = conn.execute(
            update(METRICS).where(METRICS.c.session_id == session_id).values(**values)
        )
        if found.rowcount == 0:
            conn.execute(
                insert(METRICS).values(session_id=session_id, created_at=utcnow(), **values)
            )

    db.write(op)
    return metrics


@dataclass(frozen=True)
class MetricsSummary:
    since: str | None
    sessions: int
    sessions_captured: int
    sessions_with_injection: int
    learnings_injected: int
    learnings_captured: int
    uptake: int
    # uptake / items injected, over captured sessions (uptake is known only after capture)
    uptake_rate: float | None
    compactions: int
    sessions_compacted: int
    files_read: int
    files_edited: int
    median_duration_minutes: float | None
    graph_queries: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def metrics_summary(db: Database, days: int | None = None) -> MetricsSummary:
    """Totals over sessions started in the last ``days`` days (all sessions when None)."""
    since = utcnow() - timedelta(days=days) if days is not None else None

    def op(conn: Connection) -> MetricsSummary:
        sessions_q = select(SESSIONS.c.session_id, SESSIONS.c.captured_at, SESSIONS.c.injected_ids)
        if since is not None:
            sessions_q = sessions_q.where(SESSIONS.c.started_at >= since)
        rows = conn.execute(sessions_q).all()
        ids = {r[0] for r in rows}
        metrics = [
            m
            for m in conn.execute(select(METRICS)).mappings()
            if since is None or m["session_id"] in ids
        ]
        graph_q = select(GRAPH_QUERIES.c.query_type, func.count()).group_by(
            GRAPH_QUERIES.c.query_type
        )
        if since is not None:
            graph_q = graph_q.where(GRAPH_QUERIES.c.created_at >= since)
        graph = {str(t): int(n) for t, n in conn.execute(graph_q).all()}
        durations = sorted(
            m["duration_minutes"] for m in metrics if m["duration_minutes"] is not None
        )
        injected_captured = sum(m["learnings_injected"] for m in metrics)
        uptake = sum(m["uptake"] for m in metrics)
        median = float(statistics.median(durations)) if durations else None
        return MetricsSummary(
            since=isoformat(since),
            sessions=len(rows),
            sessions_captured=sum(1 for r in rows if r[1] is not None),
            sessions_with_injection=sum(1 for r in rows if r[2]),
            learnings_injected=sum(len(r[2] or ()) for r in rows),
            learnings_captured=sum(m["learnings_captured"] for m in metrics),
            uptake=uptake,
            uptake_rate=round(uptake / injected_captured, 3) if injected_captured else None,
            compactions=sum(m["compacted"] for m in metrics),
            sessions_compacted=sum(1 for m in metrics if m["compacted"]),
            files_read=sum(m["files_read"] for m in metrics),
            files_edited=sum(m["files_edited"] for m in metrics),
            median_duration_minutes=median,
            graph_queries=graph,
        )

    return db.read(op)
