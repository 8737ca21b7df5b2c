"""Value sets and small helpers shared by workflows and milestones."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from kgraph.errors import InvalidValueError

# Seed 004's sets. Workflows and milestones share the phase set.
PHASES = ("research", "implement", "review", "finalize", "planning", "execute", "merge", "cleanup")
STATUSES = ("running", "paused", "completed", "failed")
ACTIVE_STATUSES = ("running", "paused")
FINISHED_STATUSES = ("completed", "failed")
ACTION_RESULTS = ("success", "failed", "pending")


def check_choice(value: str, allowed: Sequence[str], what: str) -> str:
    """Return ``value`` if allowed, else raise InvalidValueError naming the allowed values."""
    if value not in allowed:
        raise InvalidValueError(f"invalid {what} {value!r} (allowed: {', '.join(allowed)})")
    return value


def new_id(prefix: str) -> str:
    """A short random id that a person can type: ``wf-3f9a2c1b7d04``."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def next_stamp(previous: datetime) -> datetime:
    """Now, or just after ``previous`` if the clock has not moved: updated_at always moves."""
    return max(datetime.now(UTC), previous + timedelta(microseconds=1))
