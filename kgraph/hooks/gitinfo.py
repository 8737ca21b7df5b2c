"""What git says about the session's repository: branch, HEAD, changed files — one subprocess.

``git status --porcelain=v2 --branch -z`` gives the branch, the HEAD commit and every
modified, staged and untracked path at once. It is started before the hook imports the
database layer (:func:`start_status`) so it runs while Python imports, then collected
(:func:`finish_status`). ``GIT_OPTIONAL_LOCKS=0`` keeps it from taking the index lock the
user's own git commands need.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kgraph.capture.commits import issue_from_branch

__all__ = [
    "GitState",
    "finish_status",
    "git_state",
    "issue_from_branch",
    "parse_status",
    "start_status",
]

MAX_CHANGED_FILES = 200


@dataclass(frozen=True)
class GitState:
    """A snapshot of the repository. Empty fields when git is missing or this is no repo."""

    branch: str | None = None
    head: str | None = None
    changed_files: tuple[str, ...] = ()


def start_status(root: Path) -> subprocess.Popen[bytes] | None:
    """Start ``git status`` in ``root``; None when git cannot be run."""
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    try:
        return subprocess.Popen(
            ["git", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"],
            cwd=str(root),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None


def finish_status(process: subprocess.Popen[bytes] | None, timeout: float) -> GitState:
    """Collect the output of :func:`start_status` (waiting at most ``timeout`` seconds)."""
    if process is None:
        return GitState()
    try:
        out, _ = process.communicate(timeout=max(0.01, timeout))
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return GitState()
    if process.returncode != 0:
        return GitState()
    return parse_status(out)


def parse_status(output: bytes) -> GitState:
    """Parse ``git status --porcelain=v2 --branch -z`` output."""
    branch: str | None = None
    head: str | None = None
    files: list[str] = []
    parts = output.decode("utf-8", errors="replace").split("\x00")
    skip_next = False
    for part in parts:
        if skip_next:  # the original path of a rename/copy entry
            skip_next = False
            continue
        if not part:
            continue
        if part.startswith("# branch.oid "):
            value = part[len("# branch.oid ") :].strip()
            head = None if value == "(initial)" else value
        elif part.startswith("# branch.head "):
            value = part[len("# branch.head ") :].strip()
            branch = None if value == "(detached)" else value
        elif part.startswith("1 "):
            fields = part.split(" ", 8)
            if len(fields) == 9:
                files.append(fields[8])
        elif part.startswith("2 "):
            fields = part.split(" ", 9)
            if len(fields) == 10:
                files.append(fields[9])
            skip_next = True
        elif part.startswith("u "):
            fields = part.split(" ", 10)
            if len(fields) == 11:
                files.append(fields[10])
        elif part.startswith("? "):
            files.append(part[2:].rstrip("/"))
    unique = list(dict.fromkeys(f for f in files if f and not is_kgraph_state(f)))
    return GitState(branch=branch, head=head, changed_files=tuple(unique[:MAX_CHANGED_FILES]))


def is_kgraph_state(path: str) -> bool:
    """True for kgraph's own files (``.claude/kgraph/``, the database), and for an untracked
    ``.claude/`` folder as a whole: not what the session is working on."""
    return path in (".claude", ".claude/kgraph") or path.startswith(
        (".claude/kgraph/", ".claude/execution-state.db")
    )


def git_state(root: Path, timeout: float = 2.0) -> GitState:
    """Branch, HEAD and changed files of the repository at ``root``."""
    return finish_status(start_status(root), timeout)
