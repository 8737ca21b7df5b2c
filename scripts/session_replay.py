"""Replay real recorded Claude Code sessions through kgraph, end to end, and show what each
session was given.

The sessions (Claude Code transcripts, ``*.jsonl``) run in order of their first timestamp,
in one clone of the repository they were recorded in, against ONE kgraph database for the
whole replay, so each session meets what the earlier ones left. For each session:

1. the clone is checked out (detached, forced) at the newest commit made before the
   session started, or an older one where the files the session read before changing
   them hold what its Reads showed (a session on a branch that predates the default
   branch's latest commits: ``session_replay_checkout``); as a new user would,
   ``kgraph install`` runs before the first session (it reads the git history so far)
   and ``kgraph graph parse .`` before each (``--no-install``, ``--no-graph`` leave
   them out);
2. the hooks run as Claude Code runs them, as ``kgraph hook ...`` processes fed the JSON
   Claude Code sends, in the clone, with a temp HOME, ``KGRAPH_DB`` set to the replay's
   database and ``KGRAPH_HOOK_NO_SPAWN=1``: SessionStart (``startup``; the catch-up it
   queues, run by the worker in the foreground, learns the history's new commits), then in
   transcript
   order a UserPromptSubmit per prompt the user typed and a PostToolUse per successful
   Read/Edit/Write/MultiEdit (paths moved into the clone; a Read/Edit of a file the checkout
   lacks, or a path outside the session's cwd, is skipped), then SessionEnd;
3. the capture worker SessionEnd would start detached runs in the foreground
   (``python -m kgraph.capture.worker``), capturing the real transcript file. With
   ``--capture-at-end`` the clone is first checked out at the newest commit made before
   the session's last entry, as a user's repository holds the session's own commits when
   it ends (those that reached ``main``); without it, capture sees the starting checkout,
   and nothing a session's commits would back is backed.

What each injecting hook printed is split into items (``- Type [id] ...`` lines), and each
item is shown with its stored text, type, source and files, keyed for
``session_replay_verdicts.json`` as ``"<session prefix>:<item key>"`` (the key is
``capture_eval_summary.item_key``). The summary table covers the sessions after the first
(the first meets an empty database).

Run from the repository root with the venv active::

    python scripts/session_replay.py                      # all capture-dev sessions
    python scripts/session_replay.py --set dev2-entireio  # capture-dev2's entireio/cli ones
    python scripts/session_replay.py --write-template     # + add unjudged verdict entries
    python scripts/session_replay.py --limit 3 --keep /tmp/replay --show-captured
    python scripts/session_replay.py --only 847ff7d2 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from capture_eval_summary import item_key
from replay_sessions import find_kgraph
from session_replay_lib import (
    MUST_EXIST,
    HookCall,
    LogTail,
    Prompt,
    SessionPlan,
    ToolCall,
    Workspace,
    all_items,
    checkout_before,
    lookup_items,
    prepare,
    read_plan,
    run_hook,
    run_worker,
    setup_step,
    split_items,
    tool_payload,
)
from session_replay_report import (
    VERDICTS,
    Captured,
    Injected,
    SessionResult,
    SummaryRow,
    load_verdicts,
    session_text,
    summarise,
    summary_table,
    write_template,
)

# The shared data sit beside the checkout (../shared), as in CI; KGRAPH_SHARED names them
# elsewhere (a git worktree of the checkout in /tmp).
SHARED = Path(os.environ.get("KGRAPH_SHARED") or Path(__file__).resolve().parents[2] / "shared")
TRANSCRIPTS = SHARED / "transcripts" / "capture-dev"
BUNDLE = SHARED / "repos" / "entireio-cli.bundle"
VERDICTS_FILE = Path(__file__).resolve().parent / "session_replay_verdicts.json"
DEV2 = SHARED / "transcripts" / "capture-dev2"
DEV2_VERDICTS = VERDICTS_FILE.with_name("session_replay_verdicts_dev2.json")


@dataclass(frozen=True)
class ReplaySet:
    """A named replay: sessions of one repository (by id prefix) with its bundle."""

    transcripts: Path
    bundle: Path
    verdicts: Path
    prefixes: tuple[str, ...] = ()  # all sessions of the folder when empty


# The capture-dev2 sessions of the repositories there are bundles for (its SOURCES.md).
SETS = {
    "capture-dev": ReplaySet(TRANSCRIPTS, BUNDLE, VERDICTS_FILE),
    "dev2-napoli": ReplaySet(
        DEV2,
        SHARED / "repos" / "napoli-matcha.bundle",
        DEV2_VERDICTS,
        tuple(
            [
                "e606ceed",
                "b597dabb",
                "74b8b136",
                "ecbb2992",
                "24abcc82",
                "665369bc",
                "d0224bdb",
                "ca52a4d1",
                "22a878b9",
                "731264f9",
            ]
        ),
    ),
    "dev2-entireio": ReplaySet(
        DEV2,
        BUNDLE,
        DEV2_VERDICTS,
        tuple(
            [
                "0bb9a2d9",
                "d88bceb6",
                "b25a8b6e",
                "559081d6",
                "0822e04b",
                "0276a600",
                "0bdbfa06",
                "fdd24234",
                "3cd520f7",
                "15f99783",
                "70c88cff",
                "4ded0de6",
                "15a48867",
                "1a289c77",
                "07d86da7",
                "53ea1606",
            ]
        ),
    ),
}


def load_plans(
    folder: Path, only: str | None, limit: int | None, prefixes: tuple[str, ...] = ()
) -> list[SessionPlan]:
    files = sorted(folder.glob("*.jsonl"))
    if prefixes:
        files = [f for f in files if f.name.startswith(prefixes)]
    plans = [p for f in files if (p := read_plan(f)) is not None]
    plans.sort(key=lambda p: p.started)
    if only:
        plans = [p for p in plans if p.session_id.startswith(only)]
    return plans[:limit] if limit else plans


def _record(
    result: SessionResult, call: HookCall, found: list[tuple[str, str, str, str]], trigger: str
) -> None:
    """Note one hook call's characters, problems and the item ids it named."""
    if call.hook in result.chars:
        result.chars[call.hook] += len(call.context)
    result.hook_s += call.seconds
    if call.problem:
        result.problems.append(f"{call.hook}: {call.problem}")
    result.problems.extend(f"{call.hook} log: {line}" for line in call.log)
    if call.notice:
        result.notices.append(call.notice)
    items = split_items(call.context)
    result.unparsed.extend(items.unparsed)
    found.extend(
        (call.hook, item_id, line, trigger)
        for item_id, line in zip(items.ids, items.lines, strict=True)
    )


def _injected(
    workspace: Workspace, result: SessionResult, found: list[tuple[str, str, str, str]]
) -> None:
    """Resolve the named ids to stored items, one entry per item per session."""
    stored = lookup_items(workspace, list(dict.fromkeys(i for _, i, _, _ in found)))
    keys: set[str] = set()
    for hook, item_id, line, trigger in found:
        item = stored.get(item_id)
        if item is None:
            if item_id not in result.unknown_ids:
                result.unknown_ids.append(item_id)
            continue
        key = item_key(item.type, item.content)
        if key in keys:
            result.repeats += 1
            continue
        keys.add(key)
        result.items.append(
            Injected(
                key, hook, item.id, item.type, item.source, item.files, item.content, line, trigger
            )
        )


def _tool_trigger(step: ToolCall) -> str:
    """What a tool call is shown as: "Read cmd/x.go", "Read cmd/x.go lines 40-79" for a
    partial read (which brings the items naming what those lines define)."""
    offset, limit = step.input.get("offset"), step.input.get("limit")
    if step.name != "Read" or (not isinstance(offset, int) and not isinstance(limit, int)):
        return f"{step.name} {step.path}"
    first = offset if isinstance(offset, int) and offset > 0 else 1
    last = f"{first + limit - 1}" if isinstance(limit, int) and limit > 0 else "end"
    return f"{step.name} {step.path} lines {first}-{last}"


def replay_session(
    workspace: Workspace,
    plan: SessionPlan,
    *,
    install: bool,
    graph: bool,
    capture_at_end: bool = False,
) -> SessionResult:
    sha = checkout_before(workspace, plan.started, plan.seen)
    result = SessionResult(
        plan.session_id,
        plan.started.strftime("%Y-%m-%d %H:%M UTC"),
        sha,
        plan.first_prompt,
        skipped_outside=plan.outside,
        skipped_failed=plan.failed,
    )
    # As a new user: `kgraph install` (which reads the git history so far) before the
    # first session, and the code graph brought up to date with each session's checkout.
    steps = [["install"]] if install else []
    steps += [["graph", "parse", "."]] if graph else []
    for args in steps:
        if problem := setup_step(workspace, *args):
            result.problems.append(problem)
    log = LogTail(workspace.log_path)
    base = {"session_id": plan.session_id, "transcript_path": str(plan.transcript)}
    found: list[tuple[str, str, str, str]] = []

    def hook(name: str, trigger: str = "", **fields: object) -> None:
        _record(result, run_hook(workspace, name, {**base, **fields}, log), found, trigger)

    # Sessions days apart: each start is due a catch-up (session-start queues one at most
    # every catchup_interval_s), and the worker it starts, detached, is done before the
    # first prompt (it learns the history's commits made since the last session).
    (workspace.clone / ".claude" / "kgraph" / "catchup.stamp").unlink(missing_ok=True)
    hook("session-start", source="startup")
    started = run_worker(workspace, plan.session_id, log)
    if started.problem:
        result.problems.append(f"worker after session-start: {started.problem}")
    for step in plan.steps:
        if isinstance(step, Prompt):
            result.prompts += 1
            hook(
                "user-prompt",
                f"prompt {result.prompts}",
                prompt=step.text,
                permission_mode="default",
            )
        elif isinstance(step, ToolCall):
            if step.name in MUST_EXIST and not (workspace.clone / step.path).is_file():
                result.skipped_missing += 1
                continue
            result.tool_calls += 1
            hook("post-tool-use", _tool_trigger(step), **tool_payload(workspace, step))
    _injected(workspace, result, found)
    if capture_at_end:
        checkout_before(workspace, plan.ended)
    before = all_items(workspace)
    hook("session-end", reason="other")
    worker = run_worker(workspace, plan.session_id, log)
    result.capture_s = worker.seconds
    result.capture_log = list(worker.log)
    if worker.problem:
        result.problems.append(worker.problem)
    after = all_items(workspace)
    result.captured = [
        Captured(i.id, i.type, i.content, i.shown) for i in after.values() if i.id not in before
    ]
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("transcripts", nargs="?", type=Path, help="a folder of transcripts")
    parser.add_argument(
        "--set",
        choices=sorted(SETS),
        default="capture-dev",
        help="a named replay: its transcripts, bundle and verdicts (overridden by the others)",
    )
    parser.add_argument("--bundle", type=Path, help="the repository (bundle)")
    parser.add_argument("--only", help="only the sessions whose id starts with this")
    parser.add_argument("--limit", type=int, help="only the first N sessions (in time order)")
    parser.add_argument("--keep", type=Path, help="work in DIR and keep the clone and database")
    parser.add_argument(
        "--kgraph",
        help="the kgraph executable (default: beside this Python); the capture worker runs "
        "the python beside it",
    )
    parser.add_argument("--verdicts", type=Path)
    parser.add_argument("--write-template", action="store_true", help="add unjudged entries")
    parser.add_argument("--show-captured", action="store_true", help="print captured items")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="do not run `kgraph install` (and its history read) before the first session",
    )
    parser.add_argument(
        "--no-graph", action="store_true", help="do not parse the code graph at each checkout"
    )
    parser.add_argument(
        "--capture-at-end",
        action="store_true",
        help="capture at the newest commit before the session's end (its own commits there)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    chosen = SETS[args.set]
    if args.transcripts is not None:  # a folder of one's own: all its sessions
        chosen = ReplaySet(args.transcripts, chosen.bundle, chosen.verdicts)
    args.transcripts = chosen.transcripts
    args.bundle = args.bundle or chosen.bundle
    args.verdicts = args.verdicts or chosen.verdicts
    plans = load_plans(args.transcripts, args.only, args.limit, chosen.prefixes)
    if not plans:
        raise SystemExit(f"no sessions to replay in {args.transcripts}")
    base = args.keep or Path(tempfile.mkdtemp(prefix="session-replay-"))
    workspace = Workspace(base.resolve(), args.kgraph or find_kgraph())
    if workspace.python == sys.executable and args.kgraph:
        # The hooks run ``--kgraph``, but the capture worker is a module: without a python
        # beside that kgraph, capture is this interpreter's kgraph, not the one measured.
        print(
            f"note: no python beside {args.kgraph}; capture runs {sys.executable}'s kgraph",
            file=sys.stderr,
        )
    verdicts = load_verdicts(args.verdicts)
    started = time.perf_counter()
    results: list[SessionResult] = []
    try:
        prepare(workspace, args.bundle)
        for index, plan in enumerate(plans, 1):
            print(f"[{index}/{len(plans)}] {plan.prefix} ...", file=sys.stderr, flush=True)
            install = not args.no_install and index == 1
            results.append(
                replay_session(
                    workspace,
                    plan,
                    install=install,
                    graph=not args.no_graph,
                    capture_at_end=args.capture_at_end,
                )
            )
            if not args.json:
                print(session_text(index, results[-1], verdicts, args.show_captured) + "\n")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    rows = summarise(results[1:], verdicts)
    elapsed = time.perf_counter() - started
    if args.json:
        summary = [{**asdict(row), "shares": _shares(row)} for row in rows]
        sessions = [{**asdict(r), "total_chars": r.total_chars} for r in results]
        print(json.dumps({"sessions": sessions, "summary": summary, "seconds": elapsed}))
    else:
        print(summary_table(rows, len(results) - 1))
        counts = ", ".join(f"{r.prefix} {len(r.items)}" for r in results)
        print(f"\nItems injected per session: {counts}")
        print(f"Replayed {len(results)} sessions in {elapsed:.0f} s.")
    if args.write_template:
        added = write_template(args.verdicts, verdicts, results)
        print(f"{args.verdicts}: {added} unjudged entries added", file=sys.stderr)
    return 0


def _shares(row: SummaryRow) -> dict[str, float | None]:
    return {v: row.share(v) for v in (*VERDICTS, "unjudged")}


if __name__ == "__main__":
    sys.exit(main())
