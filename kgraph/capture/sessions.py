"""The ``sessions`` table: one Claude Code session as kgraph saw it.

Session-start records where the session started (HEAD, branch, issue, transcript) and what
was injected; capture advances the transcript watermark and keeps session facts that are
not knowledge (trivial commits, files touched, compaction summary). Every function runs one
short transaction and returns an immutable :class:`SessionRecord`. Free text written here
is redacted by the callers' capture path (:func:`kgraph.redact.redact`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, RowMapping

from kgraph.db import Database
from kgraph.db.models import Session, isoformat, table_of, utcnow
from kgraph.errors import NotFoundError

SESSIONS = table_of(Session)
MAX_INJECTED_IDS = 2_000


@dataclass(frozen=True)
class SessionRecord:
    session_id: str
    cwd: str | None
    transcript_path: str | None
    branch: str | None
    issue_number: int | None
    head_at_start: str | None
    started_at: datetime
    ended_at: datetime | None
    transcript_offset: int
    captured_at: datetime | None
    compaction_summary: str | None
    injected_ids: tuple[str, ...]
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "transcript_path": self.transcript_path,
            "branch": self.branch,
            "issue_number": self.issue_number,
            "head_at_start": self.head_at_start,
            "started_at": isoformat(self.started_at),
            "ended_at": isoformat(self.ended_at),
            "transcript_offset": self.transcript_offset,
            "captured_at": isoformat(self.captured_at),
            "compaction_summary": self.compaction_summary,
            "injected_ids": list(self.injected_ids),
            "data": self.data,
        }


def _record(row: RowMapping | dict[str, Any]) -> SessionRecord:
    """The record of a row; ``transcript_path`` expanded (it is stored as ``~/…``)."""
    from kgraph.redact.home import expand_home

    return SessionRecord(
        session_id=row["session_id"],
        cwd=row["cwd"],
        transcript_path=expand_home(row["transcript_path"]),
        branch=row["branch"],
        issue_number=row["issue_number"],
        head_at_start=row["head_at_start"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        transcript_offset=row["transcript_offset"] or 0,
        captured_at=row["captured_at"],
        compaction_summary=row["compaction_summary"],
        injected_ids=tuple(row["injected_ids"] or ()),
        data=dict(row["data"] or {}),
    )


def _load(conn: Connection, session_id: str) -> dict[str, Any] | None:
    row = (
        conn.execute(select(SESSIONS).where(SESSIONS.c.session_id == session_id)).mappings().first()
    )
    return None if row is None else dict(row)


def _load_or_create(conn: Connection, session_id: str) -> dict[str, Any]:
    row = _load(conn, session_id)
    if row is not None:
        return row
    values: dict[str, Any] = {
        "session_id": session_id,
        "cwd": None,
        "transcript_path": None,
        "branch": None,
        "issue_number": None,
        "head_at_start": None,
        "started_at": utcnow(),
        "ended_at": None,
        "transcript_offset": 0,
        "captured_at": None,
        "compaction_summary": None,
        "injected_ids": [],
        "data": {},
    }
    conn.execute(insert(SESSIONS).values(**values))
    return values


def _save(conn: Connection, before: dict[str, Any], after: dict[str, Any]) -> SessionRecord:
    """Write the changed columns: paths home-masked, names and paths redacted (the
    compaction summary and commit subjects are redacted thoroughly where they are read)."""
    from kgraph.redact import redact
    from kgraph.redact.home import mask_home

    for key in ("cwd", "transcript_path", "compaction_summary"):
        if isinstance(after.get(key), str):
            after[key] = mask_home(after[key])
    for key in ("cwd", "transcript_path", "branch"):
        if isinstance(after.get(key), str):
            after[key] = redact(after[key])
    for key in ("files_read", "files_edited"):
        paths = after["data"].get(key)
        if isinstance(paths, list):
            after["data"][key] = [redact(p) if isinstance(p, str) else p for p in paths]
    changes = {k: v for k, v in after.items() if k != "session_id" and before.get(k) != v}
    if changes:
        conn.execute(
            update(SESSIONS).where(SESSIONS.c.session_id == after["session_id"]).values(**changes)
        )
    return _record(after)


def _merge_ids(existing: Sequence[str], new: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*existing, *new]))[-MAX_INJECTED_IDS:]


def change_session(
    conn: Connection, session_id: str, change: Callable[[dict[str, Any]], None]
) -> SessionRecord:
    """Apply ``change`` to the session's column values inside the caller's transaction.

    Stored paths and the compaction summary have home directories masked (``~/…``)."""
    before = _load_or_create(conn, session_id)
    after = dict(before)
    after["data"] = dict(before.get("data") or {})
    after["injected_ids"] = list(before.get("injected_ids") or [])
    change(after)
    return _save(conn, before, after)


def update_session(
    db: Database, session_id: str, change: Callable[[dict[str, Any]], None]
) -> SessionRecord:
    """Apply ``change`` to the session's column values (a dict it may modify; the row is
    created first if missing) in one write transaction."""
    return db.write(lambda conn: change_session(conn, session_id, change))


def record_session_start(
    db: Database,
    session_id: str,
    *,
    cwd: str | None = None,
    transcript_path: str | None = None,
    branch: str | None = None,
    issue_number: int | None = None,
    head: str | None = None,
    source: str | None = None,
    injected_ids: Sequence[str] = (),
    started_at: datetime | None = None,
) -> SessionRecord:
    """Create or update a session at SessionStart (idempotent).

    The first start fixes ``head_at_start`` and ``started_at`` (a resume or compaction of the
    same session keeps them); later starts add their injected ids and count themselves in
    ``data["starts"]``.
    """

    def change(row: dict[str, Any]) -> None:
        row["cwd"] = cwd or row["cwd"]
        row["transcript_path"] = transcript_path or row["transcript_path"]
        row["branch"] = branch or row["branch"]
        if issue_number is not None:
            row["issue_number"] = issue_number
        if row["head_at_start"] is None:
            row["head_at_start"] = head
        if started_at is not None and started_at < row["started_at"]:
            row["started_at"] = started_at
        row["injected_ids"] = _merge_ids(row["injected_ids"], injected_ids)
        starts = row["data"].get("starts")
        starts = starts if isinstance(starts, list) else []
        row["data"]["starts"] = [*starts, {"source": source, "at": isoformat(utcnow())}][-50:]

    return update_session(db, session_id, change)


def add_injected(db: Database, session_id: str, ids: Sequence[str]) -> SessionRecord:
    """Remember more ids injected into a session (creating the row if needed)."""

    def change(row: dict[str, Any]) -> None:
        row["injected_ids"] = _merge_ids(row["injected_ids"], ids)

    return update_session(db, session_id, change)


def find_session(db: Database, session_id: str) -> SessionRecord | None:
    def op(conn: Connection) -> SessionRecord | None:
        row = _load(conn, session_id)
        return None if row is None else _record(row)

    return db.read(op)


def get_session(db: Database, session_id: str) -> SessionRecord:
    record = find_session(db, session_id)
    if record is None:
        raise NotFoundError(f"no session {session_id}")
    return record


def injected_ids(db: Database, session_id: str) -> tuple[str, ...]:
    """Ids already injected into a session (empty for an unknown session)."""

    def op(conn: Connection) -> tuple[str, ...]:
        ids = conn.execute(
            select(SESSIONS.c.injected_ids).where(SESSIONS.c.session_id == session_id)
        ).scalar()
        return tuple(ids or ())

    return db.read(op)


def list_sessions(db: Database, limit: int | None = None) -> list[SessionRecord]:
    """Sessions, newest first."""

    def op(conn: Connection) -> list[SessionRecord]:
        query = select(SESSIONS).order_by(SESSIONS.c.started_at.desc())
        if limit is not None:
            query = query.limit(limit)
        return [_record(row) for row in conn.execute(query).mappings()]

    return db.read(op)
