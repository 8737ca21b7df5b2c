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
    if marker.exists():
        return
    directory.mkdir(parents=True, exist_ok=True)
    try:
        with marker.open("x", encoding="utf-8") as handle:
            handle.write(
                "# kgraph's local state (logs, queue, locks, snapshot): never committed\n*\n"
            )
    except FileExistsError:
        pass


def claude_dir_block() -> str:
    return "\n".join((BEGIN, *CLAUDE_DIR_RULES, END)) + "\n"


def merged_gitignore(current: str) -> str:
    """``current`` (a .gitignore's text) with kgraph's block added or replaced in place."""
    lines = current.splitlines()
    block = claude_dir_block().splitlines()
    if BEGIN in lines and END in lines[lines.index(BEGIN) :]:
        start = lines.index(BEGIN)
        end = lines.index(END, start)
        lines[start : end + 1] = block
    else:
        if lines and lines[-1].strip():
            lines.append("")
        lines += block
    return "\n".join(lines) + "\n"


def ignore_claude_dir(claude_dir: Path) -> Path | None:
    """Add (or refresh) kgraph's block in ``claude_dir/.gitignore``; returns the file when it
    changed. Only inside a git work tree: elsewhere an ignore file is noise. Raises OSError
    when the file cannot be written."""
    from kgraph.db.location import find_git_root

    if find_git_root(claude_dir.parent) is None:
        return None
    path = claude_dir / ".gitignore"
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    wanted = merged_gitignore(current)
    if wanted == current:
        return None
    claude_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, wanted)
    return path
