"""Asking git about the user's repository: one read-only command, its output or None.

The session-start hook (:mod:`kgraph.recall.gitinfo`: status, recent commits, tracked files)
and capture (:mod:`kgraph.capture.sources.commits`: a session's commits) both read a
repository the user is working in at the same moment. So every run here:

- sets ``GIT_OPTIONAL_LOCKS=0``: git would otherwise take the index lock to refresh its
  stat cache (``git status``), and the user's own ``git commit`` would fail on it;
- never waits on a terminal (stdin is ``/dev/null``) and never past ``timeout``;
- turns every failure — git missing, not a repository, a bad revision, a timeout — into
  None: what git cannot tell is simply not known, never an error for a hook or the worker;
- decodes the output as UTF-8 with replacement: paths and commit messages in another
  encoding keep their readable part instead of failing the whole answer.

Here, in the runtime layer (standard library only), so both recall and capture can import
it; ``kgraph.codegraph.listing`` runs ``git ls-files`` itself (raw bytes, and without the
variables that point git at another repository) and ``kgraph.db.gitignore`` sits below
this layer.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

MIN_TIMEOUT_S = 0.05  # a spent budget still gives git a moment rather than none


def git_env() -> dict[str, str]:
    """The environment git runs with: the caller's, with optional locks off."""
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def run_git(root: Path, *args: str, timeout: float = 30.0) -> str | None:
    """``git ARGS`` in ``root``: its standard output, or None when git cannot be run, exits
    non-zero or takes longer than ``timeout`` seconds."""
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=str(root),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=max(MIN_TIMEOUT_S, timeout),
            env=git_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", errors="replace")
