"""Catch-up: what the worker learns besides the session that asked.

Session-start queues a catch-up at most every ``catchup_interval_s``; the worker then
captures this project's earlier transcripts that were never captured to their end (a
crash, a closed terminal, hooks installed later) and, with ``[capture] learn_history``
(on unless ``kgraph install --no-history``), the git history's new commits: what
teammates merged and commits made outside a session, which a session's own capture never
sees. Both are idempotent.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kgraph.errors import ConnectionLostError

__all__ = ["HISTORY_CATCHUP_COMMITS", "catch_up", "catch_up_history"]

CATCHUP_MAX_SESSIONS = 20
LIVE_WINDOW = timedelta(minutes=15)
# Catch-up reads this many of the newest commits of the git history (known ones are skipped:
# ~0.3 CPU-s for 200 commits of a real Go repository with nothing new).
HISTORY_CATCHUP_COMMITS = 200


def catch_up(
    db: Any, root: Path, cwd: str, current: str | None, settings: Any, log: Any
) -> list[str]:
    """Capture this project's earlier transcripts not captured to their end; returns ids."""
    from kgraph.capture.session_capture import capture_session
    from kgraph.capture.sessions import find_session
    from kgraph.transcript.discovery import list_sessions

    captured: list[str] = []
    too_old = 0
    now = datetime.now(UTC)
    max_age = timedelta(days=settings.catchup_max_age_days)
    for found in list_sessions(cwd)[:CATCHUP_MAX_SESSIONS]:
        if found.session_id == current:
            continue
        mtime = found.mtime if found.mtime.tzinfo else found.mtime.replace(tzinfo=UTC)
        if now - mtime > max_age:
            too_old += 1
            continue
        if now - mtime < LIVE_WINDOW:
            continue  # probably a live session with hooks of its own
        record = find_session(db, found.session_id)
        if record is not None and record.transcript_offset >= found.size:
            continue
        try:
            capture_session(
                db,
                root,
                found.session_id,
                transcript_path=str(found.path),
                final=True,
                bounded=True,
                extractor=settings.extractor,
                extractor_timeout=settings.extractor_timeout_s,
            )
            captured.append(found.session_id)
        except ConnectionLostError:
            raise
        except Exception as exc:
            log.error("catch-up of %s failed: %s: %s", found.session_id, type(exc).__name__, exc)
    if captured or too_old:
        log.info(
            "catch-up captured %d earlier session(s) of this project; %d older than %g days "
            "left out ([capture] catchup_max_age_days)",
            len(captured),
            too_old,
            settings.catchup_max_age_days,
        )
    if captured:
        from kgraph.runtime.notice import note_catchup

        note_catchup(root, len(captured))
    return captured


def catch_up_history(db: Any, root: Path, log: Any) -> int:
    """Learn the git history's commits made since the last look (the newest
    HISTORY_CATCHUP_COMMITS; an item's ``source_ref`` is its commit, so known ones are
    skipped). Returns the items stored."""
    from kgraph.capture.history import learn_from_history

    try:
        report = learn_from_history(db, root, limit=HISTORY_CATCHUP_COMMITS)
    except ConnectionLostError:
        raise
    except Exception as exc:
        log.error("catch-up of the git history failed: %s: %s", type(exc).__name__, exc)
        return 0
    if report.stored:
        log.info("catch-up %s", report.summary())
    return report.stored
