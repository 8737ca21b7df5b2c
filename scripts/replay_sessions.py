"""Driving kgraph from the outside: storing the learnings and running the hooks of a session.

Everything goes through the ``kgraph`` command line, as Claude Code and a person use it: the
learnings through ``kgraph knowledge import`` (the same validation, redaction, code areas and
de-duplication as ``kgraph learn``), the sessions through ``kgraph hook ...`` processes fed
the JSON Claude Code sends on stdin. So the bench keeps working when kgraph's internals
change, as long as the command names stay.

The hooks run with ``KGRAPH_HOOK_NO_SPAWN=1`` (no detached worker: it would run catch-up
capture over the replayed tree and store later commits as knowledge) and, when a hook
accepts it, ``--dry-run`` (nothing recorded, so every mode of every session starts from the
same store).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from replay_history import Commit, git, learning_record
from replay_symbols import Hunk

HOOK_TIMEOUT_S = 60
# Files a session opens in file-triggered mode, at most (a commit touching hundreds of files
# is a sweep, not a session that reads each of them).
MAX_TRIGGER_FILES = 25
MODES = ("clean", "prompt", "files", "file-triggered", "edit")
# Edits replayed per file, at most (the first hunks of the commit's change to it).
EDITS_PER_FILE = 3
_BRACKETED = re.compile(r"\[([A-Za-z]+-[0-9A-Za-z_-]+)\]")
_ITEM_LINE = re.compile(r"^\s*[-*]\s+(?P<rest>.+)$")


@dataclass(frozen=True)
class StoredItem:
    """A learning as kgraph stored it, tied back to the commit it came from."""

    id: str
    sha: str
    order: int  # the commit's index in the history: larger = more recent
    files: tuple[str, ...]
    content: str


@dataclass(frozen=True)
class Kgraph:
    """How to run kgraph: the executable, the database, and the environment of its processes."""

    exe: str
    db_url: str
    home: Path  # HOME of the processes: nothing reads or writes the real ~/.claude

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("KGRAPH_DISABLED", "KGRAPH_INTERNAL", "KGRAPH_DB", "KGRAPH_WORKER"):
            env.pop(name, None)
        env["KGRAPH_HOOK_NO_SPAWN"] = "1"
        env["HOME"] = str(self.home)
        env["CLAUDE_CONFIG_DIR"] = str(self.home / ".claude")
        return env

    def run(self, args: Sequence[str], cwd: Path, stdin: str = "") -> str:
        """Run ``kgraph --db URL ARGS`` in ``cwd``; its stdout (raises on a non-zero exit)."""
        proc = subprocess.run(
            [self.exe, "--db", self.db_url, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=HOOK_TIMEOUT_S * 10,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"kgraph {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout


def find_kgraph() -> str:
    """The ``kgraph`` beside this interpreter (the project's venv), else the one on PATH."""
    beside = Path(sys.executable).with_name("kgraph")
    found = str(beside) if beside.exists() else shutil.which("kgraph")
    if not found:
        raise SystemExit("kgraph not found: activate the project's venv")
    return found


@dataclass(frozen=True)
class HookSupport:
    """Which hooks this kgraph has, and which accept ``--dry-run``."""

    available: frozenset[str]
    dry_run: frozenset[str]


def probe_hooks(kg: Kgraph, cwd: Path, names: Iterable[str]) -> HookSupport:
    """Ask ``kgraph hook NAME --help`` (a hook group fails open: an unknown hook or option
    prints nothing, so "Usage:" in the output means it exists)."""
    available, dry = set(), set()
    for name in names:
        if "Usage:" in kg.run(["hook", name, "--help"], cwd):
            available.add(name)
            if "Usage:" in kg.run(["hook", name, "--dry-run", "--help"], cwd):
                dry.add(name)
    return HookSupport(frozenset(available), frozenset(dry))


def store_learnings(kg: Kgraph, tree: Path, commits: Sequence[Commit]) -> list[StoredItem]:
    """Import the commits' learnings into the database; the items kgraph ended up with."""
    lines = "".join(json.dumps(learning_record(c)) + "\n" for c in commits)
    kg.run(["knowledge", "import", "-"], tree, stdin=lines)
    listed = json.loads(kg.run(["knowledge", "list", "--json", "--limit", "100000"], tree))
    order = {c.sha: c.index for c in commits}
    by_text = {c.learning_text.strip(): c for c in commits}
    items = []
    for row in listed:
        sha = row.get("source_ref") or ""
        if sha not in order:  # a ref kgraph rewrote: match the text instead
            commit = by_text.get(str(row.get("content", "")).strip())
            if commit is None:
                continue
            sha = commit.sha
        items.append(
            StoredItem(row["id"], sha, order[sha], tuple(row.get("files") or ()), row["content"])
        )
    return items


def parse_graph(kg: Kgraph, tree: Path) -> None:
    """Parse the tree into the code graph (blast radius, code names in prompts)."""
    kg.run(["graph", "parse", ".", "--json"], tree)


def additional_context(stdout: str) -> str:
    """The ``additionalContext`` of a hook's output ("" when it printed nothing)."""
    if not stdout.strip():
        return ""
    try:
        data = json.loads(stdout)
    except ValueError:
        return stdout  # not the JSON contract: read it as plain context
    output = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    context = output.get("additionalContext") if isinstance(output, dict) else None
    return context if isinstance(context, str) else ""


def injected_ids(context: str, items: Mapping[str, StoredItem]) -> list[str]:
    """The stored items a context names, in order of appearance.

    Each item line carries the item's id in brackets (``- Learning [lrn-…] (why): text``);
    an item line without a known id is matched by its text, so a format that drops ids
    still counts."""
    found: dict[str, None] = {}
    prefixes = {" ".join(i.content.split())[:60]: i.id for i in items.values()}
    for line in context.splitlines():
        ids = [m for m in _BRACKETED.findall(line) if m in items]
        if not ids and (match := _ITEM_LINE.match(line)):
            text = " ".join(match.group("rest").split())
            ids = [i for p, i in prefixes.items() if len(p) >= 20 and p in text][:1]
        for item_id in ids:
            found.setdefault(item_id, None)
    return list(found)


@dataclass(frozen=True)
class Session:
    """The commit a session replays and the tree it starts from."""

    commit: Commit
    tree: Path


def _payload(session: Session, sid: str, event: str, **fields: object) -> str:
    tree = session.tree
    return json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(tree.parent / "transcripts" / f"{sid}.jsonl"),
            "cwd": str(tree),
            "hook_event_name": event,
            **fields,
        }
    )


def run_hook(
    kg: Kgraph,
    support: HookSupport,
    name: str,
    session: Session,
    payload: str,
    timings: dict[str, list[float]] | None = None,
) -> str:
    """One hook process; its additionalContext (its whole-process time goes to ``timings``)."""
    args = ["hook", name, *(["--dry-run"] if name in support.dry_run else [])]
    started = time.perf_counter()
    stdout = kg.run(args, session.tree, stdin=payload)
    if timings is not None:
        timings.setdefault(name, []).append(time.perf_counter() - started)
    return additional_context(stdout)


def checkout(tree: Path, sha: str) -> None:
    """The tree at ``sha``, clean (kgraph's ignored .claude/ state kept), on the branch the
    clone started on: the session works on the default branch, as in the replayed history."""
    branch = git(tree, "symbolic-ref", "--short", "HEAD").strip()
    git(tree, "checkout", "-q", "-f", "-B", branch, sha)
    git(tree, "clean", "-q", "-f", "-d")


def write_commit_files(tree: Path, commit: Commit) -> None:
    """The commit's version of its changed files, written into the tree and left
    uncommitted (deleted files removed)."""
    for path in commit.files:
        target = tree / path
        proc = subprocess.run(
            ["git", "show", f"{commit.sha}:{path}"], cwd=tree, capture_output=True, check=False
        )
        if proc.returncode != 0:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(proc.stdout)


def tool_payload(session: Session, sid: str, path: str) -> str:
    """A PostToolUse payload for the agent opening ``path``: Read when it exists in the
    tree, Write (a new file) otherwise."""
    absolute = str(session.tree / path)
    exists = (session.tree / path).is_file()
    tool = "Read" if exists else "Write"
    tool_input: dict[str, object] = {"file_path": absolute}
    response: dict[str, object] = {"type": "text", "file": {"filePath": absolute}}
    if not exists:
        tool_input["content"] = ""
        response = {"type": "create", "filePath": absolute}
    return _payload(
        session,
        sid,
        "PostToolUse",
        tool_name=tool,
        tool_input=tool_input,
        tool_response=response,
        tool_use_id=f"toolu_{zlib.crc32(f'{sid}:{path}'.encode()):08x}",
        permission_mode="default",
    )


def edit_payload(session: Session, sid: str, hunk: Hunk) -> str:
    """A PostToolUse payload for an Edit that made ``hunk`` (the tree holds its result)."""
    absolute = str(session.tree / hunk.path)
    return _payload(
        session,
        sid,
        "PostToolUse",
        tool_name="Edit",
        tool_input={"file_path": absolute, "old_string": hunk.old, "new_string": hunk.new},
        tool_response={"filePath": absolute, "oldString": hunk.old, "newString": hunk.new},
        tool_use_id=f"toolu_{zlib.crc32(f'{sid}:{hunk.path}:{hunk.old}'.encode()):08x}",
        permission_mode="default",
    )


Calls = dict[str, list[tuple[str, list[str]]]]  # mode -> (file, ids) per hook call


@dataclass(frozen=True)
class SessionRun:
    """What each mode injected (None: the mode's hook is missing), and per file-triggered
    hook call, the file and what that call injected (for the per-file baselines)."""

    modes: dict[str, list[str] | None]
    calls: Calls


def run_session(
    kg: Kgraph,
    support: HookSupport,
    session: Session,
    items: Mapping[str, StoredItem],
    timings: dict[str, list[float]] | None = None,
    hunks: Sequence[Hunk] = (),
) -> SessionRun:
    """The items each mode injected for this session.

    Each mode is a session of its own (its own session id), so no mode's output is held
    back because another mode already injected it. ``hunks`` are the commit's edits, each
    replayed as an Edit after the tree holds the commit's version of its files."""
    commit = session.commit
    assert commit.parent is not None
    checkout(session.tree, commit.parent)
    sid = f"replay-{commit.sha[:12]}"
    calls: Calls = {"file-triggered": [], "edit": []}

    def hook(name: str, payload: str) -> list[str]:
        return injected_ids(run_hook(kg, support, name, session, payload, timings), items)

    out: dict[str, list[str] | None] = {}
    out["clean"] = hook(
        "session-start", _payload(session, f"{sid}-clean", "SessionStart", source="startup")
    )
    out["prompt"] = hook(
        "user-prompt",
        _payload(
            session,
            f"{sid}-prompt",
            "UserPromptSubmit",
            prompt=commit.subject,
            permission_mode="default",
        ),
    )
    out["file-triggered"] = None
    if "post-tool-use" in support.available:
        seen: dict[str, None] = {}
        for path in commit.files[:MAX_TRIGGER_FILES]:
            ids = hook("post-tool-use", tool_payload(session, f"{sid}-read", path))
            calls["file-triggered"].append((path, ids))
            seen.update(dict.fromkeys(ids))
        out["file-triggered"] = list(seen)
    write_commit_files(session.tree, commit)
    out["edit"] = None
    if "post-tool-use" in support.available:
        seen = {}
        per_file: dict[str, int] = {}
        for hunk in hunks:
            if len(per_file) >= MAX_TRIGGER_FILES and hunk.path not in per_file:
                continue
            if per_file.get(hunk.path, 0) >= EDITS_PER_FILE:
                continue
            per_file[hunk.path] = per_file.get(hunk.path, 0) + 1
            ids = hook("post-tool-use", edit_payload(session, f"{sid}-edit", hunk))
            calls["edit"].append((hunk.path, ids))
            seen.update(dict.fromkeys(ids))
        out["edit"] = list(seen)
    out["files"] = hook(
        "session-start", _payload(session, f"{sid}-files", "SessionStart", source="startup")
    )
    checkout(session.tree, commit.parent)
    return SessionRun(out, calls)
