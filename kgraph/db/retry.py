"""Retry on "database is locked": a write is retried with backoff, never dropped.

``busy_timeout`` already makes SQLite wait several seconds inside one attempt; this adds
jittered exponential backoff across attempts for the rarer cases SQLite does not wait for
(a lock met at COMMIT, a checkpoint in progress, WAL recovery). On PostgreSQL the same
loop retries serialization failures, deadlocks and lock timeouts (kgraph.db.postgres).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from kgraph.db.sqlite import is_locked_error as _is_sqlite_locked
from kgraph.errors import DatabaseBusyError

T = TypeVar("T")

DEFAULT_ATTEMPTS = 12
BASE_DELAY_S = 0.02
MAX_DELAY_S = 1.0


def _postgres_conflict(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if getattr(current, "sqlstate", None) in _RETRYABLE_STATES:
            return True
        current = getattr(current, "orig", None) or current.__cause__
    return False


# PostgreSQL SQLSTATEs worth running the whole transaction again for: serialization_failure,
# deadlock_detected, lock_not_available (lock_timeout).
_RETRYABLE_STATES = frozenset({"40001", "40P01", "55P03"})


def is_locked_error(exc: BaseException) -> bool:
    """True for a conflict with another writer: SQLite's "database is locked", PostgreSQL's
    serialization failure, deadlock or lock timeout."""
    return _is_sqlite_locked(exc) or _postgres_conflict(exc)


def with_retry(
    operation: Callable[[], T],
    attempts: int = DEFAULT_ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``operation``; on a locked-database error wait and run it again.

    ``operation`` must be a whole transaction (it is re-run from the start). Raises
    DatabaseBusyError after ``attempts`` tries; any other exception propagates at once.
    """
    for attempt in range(attempts):
        try:
            return operation()
        except Exception as exc:
            if not is_locked_error(exc) or attempt == attempts - 1:
                if is_locked_error(exc):
                    raise DatabaseBusyError(
                        f"database is still locked after {attempts} attempts"
                    ) from exc
                raise
            import random  # only on a lock: ~1.5 ms a checkpoint command need not pay

            delay = min(MAX_DELAY_S, BASE_DELAY_S * (2**attempt))
            sleep(delay * (0.5 + random.random()))
    raise AssertionError("unreachable")  # pragma: no cover
