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

import contextlib
import os
import subprocess
from pathlib import Path

__all__ = ["Blobs", "GitRun", "git_env", "run_git"]

MIN_TIMEOUT_S = 0.05  # a spent budget still gives git a moment rather than none


def git_env() -> dict[str, str]:
    """The environment git runs with: the caller's, with optional locks off."""
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def run_git(root: Path, *args: str, timeout: float = 30.0) -> str | None:
    """``git ARGS`` in ``root``: its standard output, or None when git cannot be run, exits
    non-zero or takes longer than ``timeout`` seconds."""
    return GitRun(root, *args).output(timeout)


class GitRun:
    """``git ARGS`` started now and its output collected later (:meth:`output`), so a hook
    can do other work while git runs; :func:`run_git` waits at once. Any failure gives
    None."""

    def __init__(self, root: Path, *args: str) -> None:
        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                ["git", *args],
                cwd=str(root),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_env(),
            )
        except OSError:
            self._proc = None

    def output_bytes(self, timeout: float) -> bytes | None:
        """Git's standard output, waiting at most ``timeout`` seconds (then it is killed)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            out, _ = proc.communicate(timeout=max(MIN_TIMEOUT_S, timeout))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None
        return out if proc.returncode == 0 else None

    def output(self, timeout: float) -> str | None:
        out = self.output_bytes(timeout)
        return None if out is None else out.decode("utf-8", errors="replace")


class Blobs:
    """Files as a commit left them (``text(rev, path)``), read through one
    ``git cat-file --batch`` process: learning a history asks for a few files of each of
    hundreds of commits, and a ``git show`` each would cost a process apiece. Any failure
    (git missing, a path git cannot name) gives None, as :func:`run_git` does; a broken
    process is not restarted."""

    MAX_BYTES = 2_000_000  # of a file's text kept; a larger blob is still read through

    def __init__(self, root: Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._broken = False

    def __enter__(self) -> Blobs:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=str(self.root),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_env(),
            )
        return self._proc

    def text(self, rev: str, path: str) -> str | None:
        """The text of ``path`` at ``rev`` (UTF-8, replaced), or None when it has none."""
        if self._broken or "\n" in rev or "\n" in path:
            return None
        try:
            proc = self._process()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"{rev}:{path}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if not header or header[-1] in (b"missing", b"ambiguous") or len(header) != 3:
                if not header:  # git exited
                    self._broken = True
                return None
            size = int(header[2])
            data = proc.stdout.read(size + 1)  # the object and its newline
        except (OSError, ValueError):
            self._broken = True
            self.close()
            return None
        if header[1] != b"blob":
            return None
        return data[: min(size, self.MAX_BYTES)].decode("utf-8", errors="replace")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
