"""Value sets and small helpers shared by workflows and milestones, and the selection of
the active workflow the hooks share (kgraph.checkpoint.lookup).

Standard library only, and only what a checkpoint command needs: it runs many times a
session (kgraph.db.direct).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from kgraph.db.reader import ReadConnection, parse_time
from kgraph.errors import DatabaseError, InvalidValueError

# Seed 004's sets. Workflows and milestones share the phase set.
PHASES = ("research", "implement", "review", "finalize", "planning", "execute", "merge", "cleanup")
STATUSES = ("running", "paused", "completed", "failed")
ACTIVE_STATUSES = ("running", "paused")
FINISHED_STATUSES = ("completed", "failed")
ACTION_RESULTS = ("success", "failed", "pending")
_ACTIVE = ",".join(f"'{s}'" for s in ACTIVE_STATUSES)


def check_choice(value: str, allowed: Sequence[str], what: str) -> str:
    """Return ``value`` if allowed, else raise InvalidValueError naming the allowed values."""
    if value not in allowed:
        raise InvalidValueError(f"invalid {what} {value!r} (allowed: {', '.join(allowed)})")
    return value


def new_id(prefix: str) -> str:
    """A short random id that a person can type: ``wf-3f9a2c1b7d04`` (48 random bits, as
    the first 12 hex digits of a uuid4, without importing uuid)."""
    return f"{prefix}-{os.urandom(6).hex()}"


def stored_time(value: Any) -> datetime:
    """A time column as an aware UTC datetime (kgraph.db.reader.parse_time); a value that is
    not a time is a damaged row."""
    parsed = parse_time(value)
    if parsed is None:
        raise DatabaseError(f"a stored time is not a time: {value!r}")
    return parsed


def next_stamp(previous: datetime) -> datetime:
    """Now, or just after ``previous`` if the clock has not moved: updated_at always moves."""
    return max(datetime.now(UTC), previous + timedelta(microseconds=1))


def active_workflow_id(
    conn: ReadConnection, issue_number: int | None = None, branch: str | None = None
) -> str | None:
    """The id of the latest running/paused workflow of ``issue_number``, else of ``branch``."""
    for column, value in (("issue_number", issue_number), ("branch", branch)):
        if value is None or value == "":
            continue
        row = conn.execute(
            f"SELECT id FROM workflows WHERE {column} = ? AND status IN ({_ACTIVE}) "
            "ORDER BY updated_at DESC, id LIMIT 1",
            (value,),
        ).fetchone()
        if row is not None:
            return str(row[0])
    return None
