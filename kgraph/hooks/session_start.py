"""SessionStart: the ranked briefing, the session record, and queued catch-up capture.

Order of work (``ctx.published()`` always holds the best block so far, which the runner prints if
the deadline expires):

1. ``git status`` (one subprocess): branch → issue, changed files → code areas;
2. the knowledge source: the context snapshot when it is fresh (no SQLAlchemy import at
   all), else the database itself (kgraph.knowledge.query, kgraph.checkpoint,
   kgraph.codegraph); a missing or outdated database means nothing to say;
3. the workflow checkpoint for the issue/branch (leads the block after compact/resume);
4. knowledge about the files, areas and issue, then (when a code graph is parsed) about the
   files that depend on them, ranked by :mod:`kgraph.hooks.briefing`;
5. the session record (HEAD at start, branch, issue, transcript, injected ids) and, at most
   every ``catchup_interval_s``, catch-up capture go to the queue; the detached worker
   writes them (and refreshes the snapshot). The hook itself never writes the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgraph.capture.queue import enqueue
from kgraph.capture.settings import clamp_chars
from kgraph.capture.snapshot import Snapshot, load_snapshot
from kgraph.capture.spawn import spawn_worker
from kgraph.capture.state import ensure_state_dir, state_dir
from kgraph.db.location import sqlite_path
from kgraph.hooks import briefing
from kgraph.hooks.briefing import Signals
from kgraph.hooks.dbaccess import open_ready_database
from kgraph.hooks.gitinfo import GitState, git_state, issue_from_branch
from kgraph.hooks.runner import HookContext

if TYPE_CHECKING:
    from kgraph.db import Database

QUERY_LIMIT = 200
# Dependent files whose knowledge is looked up, nearest first (a query per file's edges is
# the cost that grows here; the nearest dependents are the ones that matter).
BLAST_FILES = 40
LEAD_SOURCES = frozenset({"compact", "resume"})
# Don't start the (slower) blast-radius step with less time than this left.
BLAST_MIN_REMAINING_S = 0.2


@dataclass(frozen=True)
class Source:
    """Where the briefing's facts come from: the snapshot or the database."""

    workflow: Callable[[Signals], Any]
    items: Callable[[Signals], list[Any]]
    blast: Callable[[tuple[str, ...], int], dict[str, int]]
    items_in: Callable[[list[str]], list[Any]]


def _area_rules(ctx: HookContext) -> Any:
    from kgraph.errors import KgraphError
    from kgraph.knowledge.areas import DEFAULT_AREA_RULES, load_area_rules

    try:
        return load_area_rules(ctx.root)
    except KgraphError as exc:
        ctx.log.warning("area rules ignored: %s", exc)
        return DEFAULT_AREA_RULES


def snapshot_source(snapshot: Snapshot) -> Source:
    return Source(
        workflow=lambda s: snapshot.workflow_for(s.issue_number, s.branch),
        items=lambda s: snapshot.matching_items(s.files, s.areas, s.issue_number),
        blast=lambda files, depth: (
            snapshot.blast_radius(files, depth) if snapshot.has_graph else {}
        ),
        items_in=lambda files: snapshot.matching_items(files, (), None),
    )


def database_source(db: Database, rules: Any) -> Source:
    from kgraph.checkpoint import find_workflow, find_workflow_for_branch
    from kgraph.knowledge.query import query_items

    def workflow(signals: Signals) -> Any:
        found = None
        if signals.issue_number is not None:
            found = find_workflow(db, signals.issue_number)
        if found is None and signals.branch:
            found = find_workflow_for_branch(db, signals.branch)
        return found if found is not None and found.status in ("running", "paused") else None

    def blast(files: tuple[str, ...], depth: int) -> dict[str, int]:
        from kgraph.codegraph import files_in_blast_radius, has_graph

        return dict(files_in_blast_radius(db, list(files), depth=depth)) if has_graph(db) else {}

    return Source(
        workflow=workflow,
        items=lambda s: list(
            query_items(
                db,
                files=s.files,
                code_areas=s.areas,
                issue_number=s.issue_number,
                limit=QUERY_LIMIT,
                area_rules=rules,
            )
        ),
        blast=blast,
        items_in=lambda files: list(
            query_items(db, files=files, limit=QUERY_LIMIT, expand_file_areas=False)
        ),
    )


def build_briefing(ctx: HookContext, source: Source, git: GitState, rules: Any) -> None:
    """Publish the briefing (``ctx.publish``) step by step, better with each step."""
    from kgraph.knowledge.areas import infer_code_area

    settings = ctx.settings
    max_chars = clamp_chars(ctx.options.max_chars or settings.session_start_max_chars)
    files = git.changed_files
    signals = Signals(
        branch=git.branch,
        issue_number=issue_from_branch(git.branch),
        files=files,
        areas=tuple(sorted({infer_code_area(f, rules) for f in files})),
    )
    workflow = source.workflow(signals)
    render_args: dict[str, Any] = {
        "checkpoint": briefing.render_checkpoint(workflow) if workflow is not None else None,
        "lead_with_checkpoint": ctx.payload.source in LEAD_SOURCES,
    }

    def publish(items: list[Any]) -> None:
        ranked = briefing.rank(items, signals)
        text, chosen = briefing.fit(
            ranked, signals, max_chars, settings.session_start_max_items, **render_args
        )
        ctx.publish(text, tuple(r.item.id for r in chosen))

    publish([])
    if signals.empty or ctx.expired():
        return
    items = source.items(signals)
    publish(items)
    depth = settings.blast_radius_depth
    if not files or depth <= 0 or ctx.remaining() < BLAST_MIN_REMAINING_S:
        return
    blast = source.blast(files, depth)
    if blast and not ctx.expired():
        signals = replace(signals, blast={f: blast[f] for f in nearest_first(blast)})
        publish(items + source.items_in(list(signals.blast)))


def nearest_first(blast: dict[str, int]) -> list[str]:
    """The BLAST_FILES dependent files closest to the changed ones (ties by path)."""
    return sorted(blast, key=lambda f: (blast[f], f))[:BLAST_FILES]


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


def _queue_work(ctx: HookContext, git: GitState) -> None:
    """Queue the session record with the ids actually printed (and catch-up when due), and
    start the worker. Runs as a finalizer: also when the briefing missed its deadline."""
    payload = ctx.payload
    injected = list(ctx.published()[1])
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
    spawn_worker(ctx.root, ctx.db_url)


def _knowledge(ctx: HookContext, db_path: Path | None) -> tuple[Source | None, Database | None]:
    snapshot = load_snapshot(ctx.root, db_path)
    if snapshot is not None:
        return snapshot_source(snapshot), None
    db = open_ready_database(ctx.db_url)
    return (None, None) if db is None else (None, db)


def run(ctx: HookContext) -> str | None:
    git = git_state(ctx.root, timeout=min(2.0, max(0.1, ctx.remaining())))
    if not ctx.options.dry_run:
        ctx.finalizers.append(lambda: _queue_work(ctx, git))
    source, db = _knowledge(ctx, sqlite_path(ctx.db_url))
    try:
        rules = _area_rules(ctx)
        if db is not None:
            source = database_source(db, rules)
        if source is not None:
            build_briefing(ctx, source, git, rules)
    finally:
        if db is not None:
            db.close()
    return ctx.published()[0]
