"""Keeping kgraph's local files out of git: the database, its side files and the state folder.

A project's ``.claude/`` folder is partly meant to be committed (``settings.json``, skills,
``kgraph.toml``) and partly one machine's state. Without an ignore rule ``git add -A``
commits a multi-MB database, its ``-wal``/``-shm``/lock/backup files and the hook log. So:

- ``.claude/kgraph/.gitignore`` holds ``*``: the state folder ignores itself, whoever
  created it (a hook, the worker, a command) and whether or not ``kgraph install`` ran;
- ``.claude/.gitignore`` gets one marked block listing exactly kgraph's files beside it
  (the database and its side files, the backups ``kgraph install`` makes of the settings
  files, and ``settings.local.json``, where ``kgraph install`` writes one machine's hook
  paths). Other lines of that file are kept; the block is rewritten in place.

Imports nothing heavy: the capture hooks call :func:`ignore_state_dir`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

BEGIN = "# >>> kgraph: local files, never committed (`kgraph install` keeps this block)"
END = "# <<< kgraph"
DATABASE_NAME = "execution-state.db"
CLAUDE_DIR_RULES = (
    f"/{DATABASE_NAME}",
    f"/{DATABASE_NAME}-*",  # -wal, -shm, -journal
    f"/{DATABASE_NAME}.*",  # .lock, .graph.lock, .bak-<revision>-<time>
    "/kgraph/",
    "/settings.local.json",
    "/settings*.json.bak-*",
    "/.settings*.json.kgraph-tmp",
)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.kgraph-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def ignore_state_dir(directory: Path) -> None:
    """Create ``directory`` (kgraph's state folder) holding a ``.gitignore`` of ``*``.

    One ``stat`` when it exists already (the capture hooks call this on every run).
    Raises OSError when the folder cannot be created.
    """
    marker = directory / ".gitignore"
    for _ in range(3):  # the folder may be removed under us (a user's rm -rf): make it again
        if marker.exists():
            return
        directory.mkdir(parents=True, exist_ok=True)
        try:
            with marker.open("x", encoding="utf-8") as handle:
                handle.write(
                    "# kgraph's local state (logs, queue, locks, snapshot): never committed\n*\n"
                )
            return
        except FileExistsError:
            return
        except FileNotFoundError:
            continue
    raise FileNotFoundError(f"{directory} keeps disappearing")


# The block kgraph keeps in the clone's own exclude file (.git/info/exclude, never committed):
# a local install's .mcp.json names this machine's kgraph, and installs back the file up.
LOCAL_BEGIN = "# >>> kgraph: files naming this machine's kgraph (`kgraph install` keeps this block)"


def merged_gitignore(
    current: str, rules: Sequence[str] = CLAUDE_DIR_RULES, begin: str = BEGIN
) -> str:
    """``current`` (an ignore file's text) with kgraph's block (``begin`` .. END) holding
    ``rules`` added or replaced in place; no rules removes the block."""
    lines = current.splitlines()
    block = [begin, *rules, END] if rules else []
    if begin in lines and END in lines[lines.index(begin) :]:
        start = lines.index(begin)
        end = lines.index(END, start)
        lines[start : end + 1] = block
        if not block and start > 0 and start == len(lines) and not lines[start - 1].strip():
            lines.pop()  # the blank line kgraph put before its block
    elif block:
        if lines and lines[-1].strip():
            lines.append("")
        lines += block
    return "\n".join(lines) + "\n" if lines else ""


def exclude_locally(root: Path, rules: Sequence[str]) -> Path | None:
    """Set kgraph's block in the clone's own exclude file (``git rev-parse --git-path
    info/exclude``: ignored like .gitignore, but never committed) to ``rules`` (none: remove
    it). Returns the file when it changed; None outside a git work tree."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--git-path", "info/exclude"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if found.returncode != 0 or not found.stdout.strip():
        return None
    path = root / found.stdout.strip()  # relative to ``root``, or absolute
    return set_block(path, rules, LOCAL_BEGIN)


def set_block(path: Path, rules: Sequence[str], begin: str) -> Path | None:
    """Write kgraph's block (``begin`` .. END, holding ``rules``) into the ignore file
    ``path``, creating it and its folder; returns ``path`` when it changed."""
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    wanted = merged_gitignore(current, rules, begin)
    if wanted == current:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, wanted)
    return path


def ignore_claude_dir(claude_dir: Path) -> Path | None:
    """Add (or refresh) kgraph's block in ``claude_dir/.gitignore``; returns the file when it
    changed. Only inside a git work tree: elsewhere an ignore file is noise. Raises OSError
    when the file cannot be written."""
    from kgraph.db.location import find_git_root

    if find_git_root(claude_dir.parent) is None:
        return None
    return set_block(claude_dir / ".gitignore", CLAUDE_DIR_RULES, BEGIN)
