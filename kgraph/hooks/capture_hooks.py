"""PreCompact, Stop and SessionEnd: record a capture request and start the detached worker.

These hooks never open the database and never import SQLAlchemy: SessionEnd hooks share a
1.5 s budget and Stop runs after every turn. The request carries the transcript size at
this moment (the watermark the worker captures up to, at least). Nothing is printed: a
Stop hook's output would keep Claude working.
"""

from __future__ import annotations

import os
import time

from kgraph.hooks.context import HookContext
from kgraph.runtime.queue import enqueue
from kgraph.runtime.spawn import spawn_worker
from kgraph.runtime.state import ensure_state_dir, state_dir


def _transcript_size(path: str | None) -> int | None:
    if not path:
        return None
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return None


def queue_capture(ctx: HookContext, event: str) -> None:
    """Queue capture of this session and start a worker (no-op without a session id)."""
    payload = ctx.payload
    if payload.session_id is None or ctx.options.dry_run:
        return
    enqueue(
        ctx.root,
        "capture",
        session_id=payload.session_id,
        cwd=payload.cwd or str(ctx.root),
        transcript_path=payload.transcript_path,
        transcript_size=_transcript_size(payload.transcript_path),
        event=event,
        reason=payload.reason or payload.trigger,
        final=event == "session-end",
    )
    spawn_worker(ctx.root, ctx.db_url)
    ctx.log.debug("%s: capture queued for %s", event, payload.session_id)


def pre_compact(ctx: HookContext) -> None:
    queue_capture(ctx, "pre-compact")


def session_end(ctx: HookContext) -> None:
    queue_capture(ctx, "session-end")


def stop(ctx: HookContext) -> None:
    """Stop fires after every turn: capture at most every ``stop_capture_interval_s``."""
    payload = ctx.payload
    if payload.stop_hook_active or payload.session_id is None:
        return
    stamp = state_dir(ctx.root) / "stamps" / f"{payload.session_id}.stop"
    now = time.time()
    try:
        if now - stamp.stat().st_mtime < ctx.settings.stop_capture_interval_s:
            return
    except OSError:
        pass
    if ctx.options.dry_run:
        return
    ensure_state_dir(ctx.root)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    os.utime(stamp, (now, now))
    queue_capture(ctx, "stop")
