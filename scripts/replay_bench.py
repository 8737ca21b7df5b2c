"""Recall on replayed histories: does kgraph deliver the right knowledge at the right time?

For each repository (a directory or a git bundle; it is cloned into a temp dir, never
touched), the first-parent history is split: the commits of the first 80% that explain
themselves (a body of 6+ words) are stored as learnings through ``kgraph knowledge import``
(tied to their changed files); a seeded sample of the later commits become sessions. Each
session starts from the commit's parent and is replayed in four modes, each by running the
real hook processes with Claude Code's JSON on stdin:

- clean: ``kgraph hook session-start`` on the clean tree (how sessions usually start);
- prompt: ``kgraph hook user-prompt`` with the commit's subject as the prompt;
- files: ``kgraph hook session-start`` after writing the commit's changes into the tree,
  uncommitted;
- file-triggered: ``kgraph hook post-tool-use`` with a Read (or, for a new file, Write)
  payload for each file the commit changes; "n/a" when this kgraph has no such hook;
- edit: ``kgraph hook post-tool-use`` with an Edit payload for each of the commit's first
  hunks (old/new string) in each changed file, the tree holding the commit's version.

An injected item is relevant when it is about a file the commit changed; every score is
given with hub files (changed by > 25% of the learning commits or of the later ones) counted
and left out, beside the same score of the newest items, the broadest items (those about the
most files) and, for prompts, BM25, each at the same K. A finer table counts an item
relevant when it names a function, class or file the commit changes (replay_symbols.py),
beside two baselines with no ranking: the newest items about each hook call's file, and the
broadest items. See replay_scoring.py
for the metrics and baselines.

Usage:
    python scripts/replay_bench.py ../shared/repos/mako.bundle ../shared/repos/httpx.bundle
    python scripts/replay_bench.py /path/to/repo --sessions 80 --seed 1 --json out.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from replay_history import clone, hub_files, read_history, sample_sessions, split_history
from replay_scoring import (
    BM25,
    FINE_MODES,
    FineScore,
    Ground,
    Score,
    fine_outcome,
    fine_score,
    fine_table,
    ground,
    outcomes,
    score,
    table,
)
from replay_sessions import (
    MODES,
    Kgraph,
    Session,
    checkout,
    find_kgraph,
    parse_graph,
    probe_hooks,
    run_session,
    store_learnings,
)
from replay_symbols import Change, commit_change

HOOKS = ("session-start", "user-prompt", "post-tool-use")


@dataclass(frozen=True)
class Report:
    """One repository's replay: its numbers and what it took."""

    name: str
    commits: int
    learnings: int
    stored: int
    sessions: int
    hubs: tuple[str, ...]
    hooks: tuple[str, ...]
    dry_run: tuple[str, ...]  # hooks that ran with --dry-run
    hook_median_s: dict[str, float]  # whole-process median per hook
    scores: tuple[Score, ...]  # hub files counted
    scores_no_hubs: tuple[Score, ...]  # hub files left out
    ground: Ground  # relevant stored items per session, hub files counted
    ground_no_hubs: Ground
    fine: tuple[FineScore, ...]  # relevance = names a changed function, class or file
    store_s: float
    sessions_s: float
    injected: dict[str, dict[str, list[str] | None]]  # session sha -> mode -> item ids
    item_commits: dict[str, str]  # stored item id -> the sha of the commit it came from


def replay(
    source: str,
    work: Path,
    kgraph_exe: str,
    sessions: int,
    seed: int,
    fraction: float,
    hub_share: float,
    graph: bool,
    progress: bool = True,
    config: str | None = None,
) -> Report:
    """Replay one repository in ``work`` (a fresh directory) and score it; ``config``: the
    text of a ``kgraph.toml`` for the tree (to measure a setting)."""
    tree = clone(source, work / "tree")
    if config is not None:
        (tree / ".claude").mkdir(exist_ok=True)
        (tree / ".claude" / "kgraph.toml").write_text(config, encoding="utf-8")
    (work / "home").mkdir()
    kg = Kgraph(kgraph_exe, str(work / "kgraph.db"), work / "home")
    history = read_history(tree)
    split = split_history(history, fraction)
    hubs = hub_files(split.learnings, hub_share) | hub_files(split.later, hub_share)
    started = time.perf_counter()
    checkout(tree, split.last_learning_commit.sha)
    items = store_learnings(kg, tree, split.learnings)
    if graph:
        parse_graph(kg, tree)
    store_s = time.perf_counter() - started
    support = probe_hooks(kg, tree, HOOKS)
    chosen = sample_sessions(split.later, sessions, seed)
    by_id = {i.id: i for i in items}
    started = time.perf_counter()
    runs = []
    changes: dict[str, Change] = {}
    timings: dict[str, list[float]] = {}
    for number, commit in enumerate(chosen, 1):
        change = changes[commit.sha] = commit_change(tree, commit)
        session = Session(commit, tree)
        runs.append((commit, run_session(kg, support, session, by_id, timings, change.hunks)))
        if progress:
            print(f"  session {number}/{len(chosen)} {commit.sha[:10]}", file=sys.stderr)
    sessions_s = time.perf_counter() - started
    index = BM25([i.content for i in items])
    modes = [(c, r.modes) for c, r in runs]
    found = {mode: outcomes(mode, modes, items, index) for mode in MODES}
    fine = tuple(
        fine_score(
            mode,
            [
                fine_outcome(
                    mode,
                    c,
                    changes[c.sha].named_by,
                    r.modes.get(mode) or [],
                    r.calls.get(mode),
                    items,
                    index,
                )
                for c, r in runs
            ],
        )
        for mode in FINE_MODES
    )
    return Report(
        name=Path(source.rstrip("/")).name.removesuffix(".bundle"),
        commits=len(history),
        learnings=len(split.learnings),
        stored=len(items),
        sessions=len(chosen),
        hubs=tuple(sorted(hubs)),
        hooks=tuple(sorted(support.available)),
        dry_run=tuple(sorted(support.dry_run)),
        hook_median_s={name: statistics.median(t) for name, t in sorted(timings.items())},
        scores=tuple(score(m, found[m], items) for m in MODES),
        scores_no_hubs=tuple(score(m, found[m], items, hubs) for m in MODES),
        ground=ground(chosen, items),
        ground_no_hubs=ground(chosen, items, hubs),
        fine=fine,
        store_s=store_s,
        sessions_s=sessions_s,
        injected={c.sha: dict(r.modes) for c, r in runs},
        item_commits={i.id: i.sha for i in items},
    )


def _ground(found: Ground, sessions: int) -> str:
    return (
        f"{found.sessions_with_relevant}/{sessions} sessions have a relevant stored item, "
        f"{found.mean_relevant:.1f} per session"
    )


def render(report: Report) -> str:
    hubs = ", ".join(report.hubs) or "none"
    return "\n".join(
        [
            f"== {report.name}: {report.commits} first-parent commits, {report.learnings} "
            f"learnings ({report.stored} stored), {report.sessions} sessions",
            f"hooks: {', '.join(report.hooks)} (--dry-run: {', '.join(report.dry_run) or '-'}); "
            f"hub files: {hubs}",
            f"relevance = shares a changed file ({_ground(report.ground, report.sessions)}):",
            table(report.scores),
            "relevance = shares a changed file other than a hub file "
            f"({_ground(report.ground_no_hubs, report.sessions)}):",
            table(report.scores_no_hubs),
            "relevance = names a function, class or file the commit changes (baselines at "
            "the same K: newest items about the hook call's file; the broadest items):",
            fine_table(report.fine),
            f"time: store {report.store_s:.1f} s, sessions {report.sessions_s:.1f} s "
            f"({report.sessions_s / max(1, report.sessions):.2f} s per session); median hook "
            "process: "
            + ", ".join(f"{name} {t:.2f} s" for name, t in report.hook_median_s.items()),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+", help="git repositories or bundles")
    parser.add_argument("--sessions", type=int, default=40, help="sessions per repository")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fraction", type=float, default=0.8, help="share of history learned")
    parser.add_argument("--hub-share", type=float, default=0.25)
    parser.add_argument("--no-graph", action="store_true", help="skip parsing the code graph")
    parser.add_argument("--kgraph", help="kgraph executable (default: the venv's)")
    parser.add_argument("--config", type=Path, help="a kgraph.toml to replay with")
    parser.add_argument("--json", type=Path, help="write the reports (with injected ids) here")
    parser.add_argument("--keep", action="store_true", help="keep the temp directories")
    parser.add_argument("--quiet", action="store_true", help="no per-session progress")
    args = parser.parse_args(argv)
    exe = args.kgraph or find_kgraph()
    reports = []
    total = time.perf_counter()
    for target in args.targets:
        work = Path(tempfile.mkdtemp(prefix="kg-replay-"))
        try:
            started = time.perf_counter()
            report = replay(
                target,
                work,
                exe,
                args.sessions,
                args.seed,
                args.fraction,
                args.hub_share,
                not args.no_graph,
                progress=not args.quiet,
                config=args.config.read_text(encoding="utf-8") if args.config else None,
            )
            reports.append(report)
            print(render(report) + f"; total {time.perf_counter() - started:.1f} s\n", flush=True)
        finally:
            if args.keep:
                print(f"kept {work}", file=sys.stderr)
            else:
                shutil.rmtree(work, ignore_errors=True)
    print(f"all repositories: {time.perf_counter() - total:.1f} s")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in reports], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
