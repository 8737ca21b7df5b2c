"""Pieces of ``session_replay.py``: recorded sessions as hook plans, the replay workspace
(a clone of the repository, a temp HOME, one database), running ``kgraph hook ...`` and the
capture worker, and splitting what a hook printed into the items it injected.

Transcripts are read with kgraph's own readers (``kgraph.transcript.reader.iter_entries``
and ``kgraph.capture.sources.stream.conversation``: user prompts and tool calls in file order, main
chain only), so the prompts replayed are the ones capture itself counts as typed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from capture_run import WORKER_TIMEOUT_S, timed
from replay_sessions import _BRACKETED
from session_replay_checkout import Seen, best_seen, candidates, seen_files

from kgraph.capture.gate.paths import PathMap, posix_path

HOOK_TIMEOUT_S = 60
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit"})
MUST_EXIST = frozenset({"Read", "Edit", "MultiEdit"})  # Write may create its file
HOOK_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "post-tool-use": "PostToolUse",
    "session-end": "SessionEnd",
}
INJECTING = ("session-start", "user-prompt", "post-tool-use")


# ----------------------------------------------------------------------------- plans


@dataclass(frozen=True)
class Prompt:
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str
    path: str  # repo-relative
    input: dict[str, Any]
    call_id: str


Step = Prompt | ToolCall


@dataclass(frozen=True)
class SessionPlan:
    """What one recorded session sends kgraph's hooks, in order."""

    session_id: str
    transcript: Path
    started: datetime
    steps: tuple[Step, ...]
    outside: int  # file tool calls on paths outside the session's cwd (never sent)
    failed: int  # file tool calls that errored (Claude Code sends no PostToolUse)
    ended: datetime  # its last entry's time
    # What its Reads showed of files it had not changed yet (session_replay_checkout).
    seen: Seen = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return self.session_id[:8]

    @property
    def first_prompt(self) -> str:
        return next((s.text for s in self.steps if isinstance(s, Prompt)), "")


def _relative(path: object, paths: PathMap) -> str | None:
    """``path`` relative to the session's checkout as capture maps it (PathMap: under one of
    the session's cwds, a worktree's file the repo's), or through a folder named as the
    checkout the session started in (a checkout reached through a symlink: Claude Code
    records the cwd resolved, the agent writes the path it was given), which capture
    checks against the files of the repo and the replay, before any checkout, cannot."""
    if not isinstance(path, str):
        return None
    found = paths.rel(path)
    if found is not None:
        return found
    parts = posix_path(path).split("/")
    name = paths.root.name
    if name in parts[:-1]:
        return paths.rel("/".join(parts[parts.index(name) + 1 :]))
    return None


def read_plan(transcript: Path) -> SessionPlan | None:
    """The hook plan of one transcript (None when it has no timestamp)."""
    from kgraph.capture.extract import transcript_cwds
    from kgraph.capture.sources.stream import Ran, Said, conversation
    from kgraph.transcript.reader import iter_entries

    entries = list(iter_entries(transcript))
    times = [e.time for e in entries if e.time is not None]
    if not times:
        return None
    cwds = transcript_cwds(entries)
    paths = PathMap(Path(posix_path(cwds[0]) if cwds else "/nonexistent"), cwds)
    session_id = next((e.session_id for e in entries if e.session_id), transcript.stem)
    steps: list[Step] = []
    reads: list[tuple[str, str, str]] = []
    outside = failed = 0
    for event in conversation(entries):
        if isinstance(event, Said) and event.who == "user" and event.via == "prompt":
            steps.append(Prompt(event.text))
        elif isinstance(event, Ran) and event.name in FILE_TOOLS:
            if event.is_error:
                failed += 1
            elif (path := _relative(event.input.get("file_path"), paths)) is None:
                outside += 1
            else:
                steps.append(ToolCall(event.name, path, dict(event.input), event.call_id))
                reads.append((event.name, path, event.result))
    return SessionPlan(
        session_id,
        transcript,
        min(times),
        tuple(steps),
        outside,
        failed,
        max(times),
        seen_files(reads),
    )


# ----------------------------------------------------------------------------- workspace


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


@dataclass(frozen=True)
class Workspace:
    """The clone the sessions run in, their HOME, and the one database of the replay."""

    base: Path
    kgraph: str  # the kgraph executable

    @property
    def clone(self) -> Path:
        return self.base / "clone"

    @property
    def home(self) -> Path:
        return self.base / "home"

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.base / 'replay.db'}"

    @property
    def log_path(self) -> Path:
        return self.clone / ".claude" / "kgraph" / "hook.log"

    @property
    def python(self) -> str:
        beside = Path(self.kgraph).with_name("python")
        return str(beside) if beside.exists() else sys.executable

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
        env.update(
            HOME=str(self.home),
            CLAUDE_CONFIG_DIR=str(self.home / ".claude"),
            KGRAPH_DB=self.db_url,
            KGRAPH_HOOK_NO_SPAWN="1",
            # No hook reads vectors; the worker's embedding of what it captured would only
            # add the real model's load to every session of the replay.
            KGRAPH_EMBEDDER="fake",
        )
        return env


def prepare(workspace: Workspace, bundle: Path) -> None:
    """Clone ``bundle``'s main branch and create (and migrate) the empty database."""
    from kgraph.db import open_database

    workspace.home.mkdir(parents=True, exist_ok=True)
    if not workspace.clone.exists():
        subprocess.run(
            ["git", "clone", "-q", "-b", "main", str(bundle), str(workspace.clone)],
            check=True,
            capture_output=True,
        )
    open_database(workspace.db_url).close()


def setup_step(workspace: Workspace, *args: str) -> str | None:
    """Run ``kgraph ARGS`` in the clone as a user would (``install``, ``graph parse .``);
    what went wrong, or None."""
    proc = subprocess.run(
        [workspace.kgraph, *args],
        cwd=workspace.clone,
        env=workspace.env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode == 0:
        return None
    return f"kgraph {' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}"


def checkout_before(workspace: Workspace, when: datetime, seen: Seen | None = None) -> str:
    """Check out (detached, forced) the newest commit made before ``when``, or an older one
    where more of the files the session read hold what its Reads showed (``seen``); its
    sha."""
    clone = workspace.clone
    shas = candidates(clone, when)
    sha = best_seen(clone, shas, seen or {}) if shas else ""
    if not sha:  # the session predates the history: its first commit
        sha = git(clone, "rev-list", "--max-parents=0", "main").splitlines()[0]
    git(clone, "checkout", "-q", "-f", "--detach", sha)
    return sha


# ----------------------------------------------------------------------------- hooks


@dataclass(frozen=True)
class HookCall:
    """One hook process: what it printed and what went wrong."""

    hook: str
    context: str  # its additionalContext ("" when it printed none)
    notice: str  # its systemMessage, if any
    problem: str | None  # a non-zero exit, a timeout, stderr, unreadable stdout
    log: tuple[str, ...]  # ERROR/WARNING lines it wrote to hook.log
    seconds: float


class LogTail:
    """The hook.log lines written since the last call (the log rotates: a shorter file is
    read from its start)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = self._size()

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def new_lines(self) -> list[str]:
        size = self._size()
        if size < self.offset:
            self.offset = 0
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return []
        self.offset += len(data)
        return data.decode("utf-8", errors="replace").splitlines()


def _problems(lines: list[str]) -> tuple[str, ...]:
    return tuple(line for line in lines if " ERROR " in line or " WARNING " in line)


def parse_output(stdout: str) -> tuple[str, str, str | None]:
    """(additionalContext, systemMessage, problem) of a hook's stdout; plain text is
    context, as Claude Code reads it."""
    if not stdout.strip():
        return "", "", None
    if not stdout.lstrip().startswith("{"):
        return stdout, "", None
    try:
        data = json.loads(stdout)
    except ValueError:
        return stdout, "", "stdout starts with { but is not JSON"
    if not isinstance(data, dict):
        return "", "", "stdout is not a JSON object"
    output = data.get("hookSpecificOutput")
    context = output.get("additionalContext") if isinstance(output, dict) else None
    notice = data.get("systemMessage")
    return (
        context if isinstance(context, str) else "",
        notice if isinstance(notice, str) else "",
        None,
    )


def run_hook(workspace: Workspace, hook: str, payload: dict[str, Any], log: LogTail) -> HookCall:
    """Run ``kgraph hook HOOK`` in the clone with ``payload`` on stdin."""
    started = time.perf_counter()
    body = {"cwd": str(workspace.clone), "hook_event_name": HOOK_EVENTS[hook], **payload}
    problem: str | None = None
    stdout = ""
    try:
        proc = subprocess.run(
            [workspace.kgraph, "hook", hook],
            input=json.dumps(body),
            cwd=workspace.clone,
            env=workspace.env(),
            capture_output=True,
            text=True,
            timeout=HOOK_TIMEOUT_S,
            check=False,
        )
        stdout = proc.stdout
        if proc.returncode != 0:
            problem = f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
        elif proc.stderr.strip():
            problem = f"stderr: {proc.stderr.strip()[-300:]}"
    except subprocess.TimeoutExpired:
        problem = f"timed out after {HOOK_TIMEOUT_S} s"
    context, notice, parse_problem = parse_output(stdout)
    return HookCall(
        hook,
        context,
        notice,
        problem or parse_problem,
        _problems(log.new_lines()),
        time.perf_counter() - started,
    )


def tool_payload(workspace: Workspace, call: ToolCall) -> dict[str, Any]:
    """The PostToolUse input for ``call``, its file path moved into the clone."""
    absolute = str(workspace.clone / call.path)
    tool_input = {**call.input, "file_path": absolute}
    response: dict[str, Any] = {"filePath": absolute}
    if call.name == "Read":
        response = {"type": "text", "file": {"filePath": absolute}}
    elif call.name == "Write":
        response = {"type": "update", "filePath": absolute}
    return {
        "tool_name": call.name,
        "tool_input": tool_input,
        "tool_response": response,
        "tool_use_id": call.call_id,
        "permission_mode": "default",
    }


@dataclass(frozen=True)
class WorkerResult:
    seconds: float
    cpu_s: float
    problem: str | None
    log: tuple[str, ...]  # its "captured ..." line and any ERROR/WARNING lines


def run_worker(workspace: Workspace, session_id: str, log: LogTail) -> WorkerResult:
    """The capture worker, in the foreground, draining what the session's hooks queued."""
    command = [
        workspace.python,
        *("-m", "kgraph.capture.worker", "--root", str(workspace.clone)),
        *("--db", workspace.db_url),
    ]
    started = time.perf_counter()
    problem: str | None = None
    cpu = 0.0
    try:
        cpu, code = timed(command, workspace.env(), cwd=workspace.clone)
        if code != 0:
            problem = f"worker exit {code}"
    except subprocess.TimeoutExpired:
        problem = f"worker timed out after {WORKER_TIMEOUT_S} s"
    lines = log.new_lines()
    kept = [ln for ln in lines if f"captured {session_id}" in ln] + list(_problems(lines))
    return WorkerResult(time.perf_counter() - started, cpu, problem, tuple(kept))


# ----------------------------------------------------------------------------- items


@dataclass(frozen=True)
class ContextItems:
    """The item ids a context names, in order, and the item-like lines naming none."""

    ids: tuple[str, ...]
    unparsed: tuple[str, ...] = field(default=())
    lines: tuple[str, ...] = field(default=())  # each id's line as printed (its reason too)


def split_items(context: str) -> ContextItems:
    """Item lines are ``- Type [id] (why): text``; everything else (the title, latest
    commits, area headers, the checkpoint) is frame."""
    ids: dict[str, str] = {}
    unparsed: list[str] = []
    for line in context.splitlines():
        if not line.lstrip().startswith("- "):
            continue
        found = _BRACKETED.findall(line)
        if found:
            ids.setdefault(found[0], line.strip())
        else:
            unparsed.append(line.strip()[:160])
    return ContextItems(tuple(ids), tuple(unparsed), tuple(ids.values()))


@dataclass(frozen=True)
class StoredItem:
    id: str
    type: str
    content: str
    source: str
    files: tuple[str, ...]
    shown: bool = True  # False: hidden (a candidate waiting, or superseded)


def _stored(item: Any) -> StoredItem:
    return StoredItem(item.id, item.type, item.content, item.source, tuple(item.files), item.active)


def lookup_items(workspace: Workspace, ids: list[str]) -> dict[str, StoredItem]:
    """The stored items by id (ids naming nothing are left out)."""
    import kgraph

    if not ids:
        return {}
    with kgraph.open(workspace.db_url, embedder=False, cwd=workspace.clone) as kg:
        found = kg.get_many(ids)
    return {i: _stored(item) for i, item in found.items() if item is not None}


def all_items(workspace: Workspace) -> dict[str, StoredItem]:
    """Every stored knowledge item (superseded ones included), by id."""
    import kgraph
    from kgraph.knowledge import list_items

    with kgraph.open(workspace.db_url, embedder=False, cwd=workspace.clone) as kg:
        items = list_items(kg.db, limit=1_000_000, include_superseded=True)
    return {item.id: _stored(item) for item in items}
