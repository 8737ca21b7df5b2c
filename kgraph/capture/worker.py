"""The detached capture worker: drains the project's capture queue, then exits.

Started by the hooks (``python -m kgraph.capture.worker --root ROOT [--db URL]``), fully
detached. It may create or upgrade the database (hooks never do). Requests are applied in
order: session records and injected ids first, then one capture per session (requests for
the same session coalesce), then catch-up: earlier transcripts never captured and the git
history's new commits (``[capture] learn_history``). A failed
request is retried by a later worker up to ``MAX_ATTEMPTS`` times. On a server, the worker
then refreshes the hooks' local copy of the project (kgraph.db.mirror); a ``refresh`` request
asks for that alone.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgraph.errors import ConnectionLostError
from kgraph.runtime import queue
from kgraph.runtime.logfile import get_logger
from kgraph.runtime.queue import Request

MAX_ATTEMPTS = 3
MAX_ROUNDS = 20


@dataclass
class WorkerReport:
    applied: int = 0
    captured: list[str] = field(default_factory=list)
    created: int = 0
    failed: int = 0
    ended: bool = False  # a session's last capture (SessionEnd) was among them
    started: bool = False  # a session's start was among them


def _as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _as_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _apply_start(db: Any, request: Request) -> None:
    from kgraph.capture.sessions import record_session_start

    f = request.fields
    started = None
    if isinstance(f.get("started_at"), str):
        try:
            started = datetime.fromisoformat(f["started_at"])
            started = started if started.tzinfo else started.replace(tzinfo=UTC)
        except ValueError:
            started = None
    ids = f.get("injected_ids")
    record_session_start(
        db,
        str(request.session_id),
        cwd=_as_str(f.get("cwd")),
        transcript_path=_as_str(f.get("transcript_path")),
        branch=_as_str(f.get("branch")),
        issue_number=_as_int(f.get("issue_number")),
        head=_as_str(f.get("head")),
        source=_as_str(f.get("source")),
        injected_ids=[i for i in ids if isinstance(i, str)] if isinstance(ids, list) else [],
        started_at=started,
    )


def _apply_injected(db: Any, request: Request) -> None:
    from kgraph.capture.sessions import add_injected

    ids = request.fields.get("injected_ids")
    if isinstance(ids, list):
        add_injected(db, str(request.session_id), [i for i in ids if isinstance(i, str)])


def _retry_later(root: Path, requests: Sequence[Request], log: Any) -> None:
    """Queue failed requests again, each counting one attempt, up to MAX_ATTEMPTS. A lost
    connection never gets here: it is the server's fault, not the request's (see _drain)."""
    for request in requests:
        attempts = (_as_int(request.fields.get("attempts")) or 0) + 1
        if attempts < MAX_ATTEMPTS:
            queue.enqueue(root, request.kind, **{**request.fields, "attempts": attempts})
        else:
            log.error(
                "dropping %s request for %s after %d attempts",
                request.kind,
                request.session_id,
                attempts,
            )
    queue.finish(list(requests))


def process(db: Any, root: Path, requests: list[Request], log: Any) -> WorkerReport:
    """Apply one batch of claimed requests (see module docstring)."""
    from kgraph.capture.session_capture import capture_session
    from kgraph.runtime.settings import load_settings

    settings = load_settings(root)
    report = WorkerReport()
    captures: dict[str, list[Request]] = {}
    catchups: list[Request] = []
    for request in requests:
        if request.kind in ("start", "injected", "capture") and request.session_id is None:
            queue.finish([request])
            continue
        if request.kind == "capture":
            captures.setdefault(str(request.session_id), []).append(request)
            continue
        if request.kind == "catchup":
            catchups.append(request)
            continue
        if request.kind == "refresh":  # done once the queue is drained (refresh_copy)
            queue.finish([request])
            continue
        try:
            (_apply_start if request.kind == "start" else _apply_injected)(db, request)
            report.applied += 1
            report.started = report.started or request.kind == "start"
            queue.finish([request])
        except ConnectionLostError:
            raise
        except Exception as exc:
            log.error("%s request failed: %s: %s", request.kind, type(exc).__name__, exc)
            report.failed += 1
            _retry_later(root, [request], log)
    for session_id, group in captures.items():
        latest = group[-1].fields
        path = next(
            (
                _as_str(r.fields.get("transcript_path"))
                for r in reversed(group)
                if _as_str(r.fields.get("transcript_path"))
            ),
            None,
        )
        try:
            result = capture_session(
                db,
                root,
                session_id,
                transcript_path=path,
                final=any(r.fields.get("final") is True for r in group),
                extractor=settings.extractor,
                extractor_timeout=settings.extractor_timeout_s,
            )
            report.captured.append(session_id)
            report.created += len(result.created)
            report.ended = report.ended or any(r.fields.get("final") is True for r in group)
            log.info(
                "captured %s (%s): %d new, %d seen again, %d skipped, rejected %s",
                session_id,
                latest.get("event"),
                len(result.created),
                len(result.reinforced),
                result.skipped,
                result.rejected,
            )
            queue.finish(group)
        except ConnectionLostError:
            raise
        except Exception as exc:
            log.error("capture of %s failed: %s: %s", session_id, type(exc).__name__, exc)
            report.failed += 1
            _retry_later(root, group, log)
    if catchups:
        fields = catchups[-1].fields
        from kgraph.capture.catchup import catch_up, catch_up_history

        try:
            report.captured += catch_up(
                db,
                root,
                _as_str(fields.get("cwd")) or str(root),
                _as_str(fields.get("current_session")),
                settings,
                log,
            )
            if settings.learn_history:
                catch_up_history(db, root, log)
        except ConnectionLostError:
            queue.release(catchups)  # the server's fault: a later worker does it
            raise
        finally:
            queue.finish(catchups)
    return report


def prune_state(root: Path, older_than_s: float = 7 * 86_400) -> int:
    """Delete per-session lock and stamp files not touched for a week; returns how many."""
    from kgraph.runtime.state import locks_dir, state_dir

    removed = 0
    cutoff = time.time() - older_than_s
    for directory in (locks_dir(root), state_dir(root) / "stamps"):
        for path in directory.glob("*") if directory.is_dir() else []:
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError:
                continue
    return removed


def run_worker(root: Path, db_url: str | None = None, max_seconds: float = 900.0) -> WorkerReport:
    """Drain the queue of the project at ``root`` until it is empty (or ``max_seconds``).

    Only one worker per project runs at a time: another one returns at once, and the holder
    looks at the queue again after letting go of the lock, so a request queued meanwhile is
    never stranded.
    """
    from kgraph.db.location import resolve_database_url
    from kgraph.runtime.lock import worker_lock

    log = get_logger(root)
    url = db_url or resolve_database_url(cwd=root)
    total = WorkerReport()
    started = time.monotonic()
    while True:
        with worker_lock(root) as held:
            if not held:
                return total
            _drain(root, url, log, total, started, max_seconds)
        if not queue.pending(root) or time.monotonic() - started > max_seconds or total.failed:
            return total


def _drain(
    root: Path, url: str, log: Any, total: WorkerReport, started: float, max_seconds: float
) -> None:
    from kgraph.db import open_database

    requests = queue.claim_all(root)
    if not requests:
        return
    from kgraph.db.location import sqlite_path
    from kgraph.errors import KgraphError
    from kgraph.runtime.notice import record_problem
    from kgraph.runtime.settings import load_settings

    # A database that cannot be opened (a server out of reach, a damaged file) is no fault
    # of the requests: they go back to the queue, not counted as an attempt, and wait for
    # a worker that can write them (a laptop offline for a day loses nothing).
    try:
        db = open_database(url)
    except KgraphError as exc:
        log.error("worker cannot open the database: %s", exc)
        record_problem(root, str(exc), sqlite_path(url))
        queue.release(requests)
        total.failed += 1
        return
    except Exception as exc:
        log.error("worker cannot open the database: %s: %s", type(exc).__name__, exc)
        queue.release(requests)
        total.failed += 1
        return
    if db.read_only:
        message = f"database {db.where} is read-only: sessions are not captured"
        log.error("worker: %s", message)
        record_problem(root, message, db.path)
        db.close()
        _retry_later(root, requests, log)
        total.failed += 1
        return
    try:
        for _ in range(MAX_ROUNDS):
            report = process(db, root, requests, log)
            total.applied += report.applied
            total.captured += report.captured
            total.created += report.created
            total.failed += report.failed
            total.ended = total.ended or report.ended
            total.started = total.started or report.started
            if report.failed or time.monotonic() - started > max_seconds:
                break
            requests = queue.claim_all(root)
            if not requests:
                break
    except ConnectionLostError as exc:
        # Like a server out of reach at open: the requests wait, no attempt spent.
        log.error("worker lost the database: %s; requests kept for the next worker", exc)
        record_problem(root, str(exc), sqlite_path(url))
        queue.release(requests)
        total.failed += 1
        db.close()
        return
    from kgraph.capture.upkeep import embed_captured, index_vectors, refresh_copy, refresh_graph

    try:
        if total.created and total.ended and load_settings(root).embed_captured:
            embed_captured(db, log)
        if total.ended or total.started:  # the session's changes; a checkout since
            refresh_graph(db, root, log)
        refresh_copy(db, root, log)
        index_vectors(db, log)
    finally:
        db.close()
    prune_state(root)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgraph.capture.worker", description=__doc__)
    parser.add_argument("--root", required=True, help="project root whose queue to drain")
    parser.add_argument("--db", default=None, help="database URL (default: the project's)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    with contextlib.suppress(AttributeError, OSError):
        os.nice(10)  # background work: the hooks and Claude Code come first
    try:
        run_worker(root, db_url=args.db)
    except Exception as exc:  # the worker is detached: log, never a traceback on a terminal
        get_logger(root).exception("worker failed: %s", exc)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
