"""SessionStart: the briefing (kgraph.recall.session), the session record, and catch-up.

This face reads git's state within the hook's deadline, prints the briefing, and queues the
session record (with the ids actually printed) and, when due, catch-up capture of earlier
transcripts for the detached worker. The hook itself never writes the database.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from kgraph.hooks.context import HookContext
from kgraph.knowledge.areas import AreaRules
from kgraph.recall.evidence import load_evidence_settings
from kgraph.recall.gitinfo import (
    GitState,
    finish_status,
    issue_from_branch,
    recent_work,
    start_status,
)
from kgraph.recall.readmodel import unused_items
from kgraph.recall.recent import LatestChanges
from kgraph.recall.session import SessionSignals, session_briefing
from kgraph.recall.stale import CodeCheck, Elsewhere
from kgraph.runtime import seen
from kgraph.runtime.notice import take_catchup
from kgraph.runtime.queue import enqueue
from kgraph.runtime.spawn import spawn_worker
from kgraph.runtime.state import ensure_state_dir, state_dir

__all__ = ["FRESH_SOURCES", "run"]

# A compaction or /clear empties the context: what was injected may come again.
FRESH_SOURCES = frozenset({"compact", "clear"})


def _area_rules(ctx: HookContext) -> AreaRules | None:
    from kgraph.errors import KgraphError
    from kgraph.knowledge.areas import load_area_rules

    try:
        return load_area_rules(ctx.root)
    except KgraphError as exc:
        ctx.log.warning("area rules ignored: %s", exc)
        return None


def _catchup_due(ctx: HookContext) -> bool:
    """True (and the stamp renewed) when catch-up was last queued over the interval ago."""
    stamp = state_dir(ctx.root) / "catchup.stamp"
    try:
        if time.time() - stamp.stat().st_mtime < ctx.settings.catchup_interval_s:
            return False
    except OSError:
        pass
    ensure_state_dir(ctx.root)
    stamp.touch()
    return True


def _queue_work(ctx: HookContext, git: GitState, marks: list[str]) -> None:
    """Remember what was printed (and the ``marks`` for the session's later hooks), queue
    the session record with the ids actually printed (and catch-up when due), and start
    the worker. Runs as a finalizer: also when the briefing missed its deadline."""
    payload = ctx.payload
    text, ids = ctx.published()
    injected = list(ids)
    seen.remember(ctx.root, payload.session_id, injected, chars=len(text or ""), marks=marks)
    cwd = payload.cwd or str(ctx.root)
    if payload.session_id is not None:
        enqueue(
            ctx.root,
            "start",
            session_id=payload.session_id,
            cwd=cwd,
            transcript_path=payload.transcript_path,
            branch=git.branch,
            issue_number=issue_from_branch(git.branch),
            head=git.head,
            source=payload.source,
            injected_ids=injected,
            started_at=datetime.now(UTC).isoformat(),
        )
    if _catchup_due(ctx):
        enqueue(ctx.root, "catchup", cwd=cwd, current_session=payload.session_id)
        seen.prune(ctx.root)
    spawn_worker(ctx.root, ctx.db_url)


def _git_wait(ctx: HookContext) -> float:
    """How long one of the briefing's git answers may be waited for: a second at most,
    within the hook's deadline."""
    return min(1.0, max(0.1, ctx.remaining()))


def run(ctx: HookContext) -> str | None:
    status = start_status(ctx.root)
    steps = ctx.settings.user_prompt_history_changes
    latest = LatestChanges(ctx.root, steps) if steps else None  # git runs as the store opens
    payload = ctx.payload
    if payload.source in FRESH_SOURCES and not ctx.options.dry_run:
        seen.forget_all(ctx.root, payload.session_id)
    git = finish_status(status, timeout=min(2.0, max(0.1, ctx.remaining())))
    # For the session's later hooks: the items of commits HEAD lacks, and the commits of
    # the project's latest changes (the prompt hook trusts its matches for those only).
    marks: list[str] = []
    if not ctx.options.dry_run:
        ctx.finalizers.append(lambda: _queue_work(ctx, git, marks))
    # The worker _queue_work starts refreshes the server's local copy: no request here.
    if ctx.budget_spent():
        return None
    conn = ctx.open_store(fresh_for=ctx.settings.server_copy_max_age_s, ask_refresh=False)
    if conn is None:
        return None
    try:
        away = Elsewhere(conn, ctx.root)  # git runs while the recent work is read
        recent = recent_work(ctx.root, git.branch, timeout=_git_wait(ctx))
        off = away.ids(timeout=_git_wait(ctx))
        marks.extend(f"{seen.ELSEWHERE}{i}" for i in sorted(off))
        if away.unanswered:
            ctx.log.debug("git did not say which commits HEAD lacks: none left out")
        if away.unlanded:
            ctx.log.debug(
                "git did not say whether %d commits HEAD lacks landed under another sha: "
                "their items stay left out",
                away.unlanded,
            )
        found = latest.found(timeout=_git_wait(ctx)) if latest else None
        if found is not None:
            marks.append(f"{seen.RECENT_SINCE}{int(found.since)}")
            marks.extend(f"{seen.RECENT}{sha}" for sha in sorted(found.shas))
        elif latest is not None:
            ctx.log.debug("no recent changes known (a short history?): prompts hold none back")
        signals = SessionSignals(
            branch=git.branch,
            changed=git.changed_files,
            recent=recent,
            session_id=payload.session_id,
            source=payload.source,
        )
        briefing = session_briefing(
            conn,
            ctx.root,
            signals,
            settings=ctx.settings,
            evidence=load_evidence_settings(ctx.root),
            area_rules=_area_rules(ctx),
            exclude=(set() if payload.source in FRESH_SOURCES else set(ctx.seen().ids))
            | unused_items(conn, ctx.latest_sessions(conn))
            | off,
            max_chars=ctx.budget(ctx.settings.session_start_max_chars),
            check=CodeCheck(ctx.root),
        )
    finally:
        conn.close()
    text = briefing.text
    caught = None if ctx.options.dry_run else take_catchup(ctx.root)
    if caught is not None:  # said once, in the header, with or without a briefing
        text = _with_header_line(text, caught)
    if text is None:
        ctx.log.debug("session-start printed nothing: %s", briefing.why)
    ctx.publish(text, briefing.ids)
    return text


def _with_header_line(text: str | None, line: str) -> str:
    """``line`` as the first line inside the briefing's block (or a block of its own)."""
    opening = "<kgraph-context>\n"
    if text and text.startswith(opening):
        return f"{opening}{line}\n{text[len(opening) :]}"
    return f"{opening}{line}\n</kgraph-context>" if not text else f"{line}\n{text}"
