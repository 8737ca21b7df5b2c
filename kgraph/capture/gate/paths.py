"""Paths in captured text: the transcript's own working directory mapped onto the repo root,
home directories masked.

A transcript records the directory Claude Code ran in (``cwd``), which is often not the
directory the capture worker runs in: another clone, another machine, a moved checkout.
Paths under either directory are written repo-relative; any other path under a home
directory (``/Users/<name>``, ``/home/<name>``, ``/root``, ``C:\\Users\\<name>``) is written
with ``~`` (:mod:`kgraph.redact.home`). A session recorded on Windows has Windows paths;
they map the same way (:func:`posix_path`).

A session's paths do not always start with its cwd. Claude Code records the cwd resolved,
while the agent writes the paths it was given: a checkout reached through a symlink
(``~/Developer`` → an iCloud Drive folder; ``/tmp`` → ``/private/tmp`` on macOS) has every
file outside the cwd, and a session replayed from such a machine (real sessions of one
repository) lost the files of every item. Such a path is mapped when it resolves into the
repo here, or when a folder of it is named as the repo is and the rest is a file of the
repo. A file in one of Claude Code's worktrees (``.claude/worktrees/<name>/src/x.py``) is
the repo's ``src/x.py`` on another branch.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from kgraph.redact.home import mask_home

__all__ = ["PathMap", "posix_path"]

_ABS_PATH = re.compile(r"(?<![\w.~])(/[^\s'\"`:;,()<>\]\[{}|*]+)")
# A Windows absolute path (a session recorded on Windows: ``C:\\Users\\ann\\repo\\x.py``)
_WINDOWS_ABS = re.compile(r"(?<![\w.~])([A-Za-z]:[\\/][^\s'\"`:;,()<>\]\[{}|*]*)")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_WORKTREE = re.compile(r"^\.claude/worktrees/[^/]+/(?=.)")


def posix_path(path: str) -> str:
    """``path`` with a Windows drive path written POSIX-style (``C:\\x\\y`` → ``C:/x/y``, the
    drive letter upper-case), so one recorded on Windows maps like any other."""
    if not _DRIVE.match(path):
        return path
    return path[0].upper() + path[1:].replace("\\", "/")


def _absolute(path: str) -> bool:
    return path.startswith("/") or bool(_DRIVE.match(path))


# Folders a session may cd into that are no checkout: scratch space.
_SCRATCH = ("/tmp", "/private/tmp", "/private/var/folders", "/var/folders", "/var/tmp")
_SCRATCH_PREFIXES = tuple(f"{s}/" for s in _SCRATCH)


@dataclass(frozen=True)
class PathMap:
    """Maps absolute paths from a transcript onto repo-relative ones.

    ``bases`` are the directories that stand for the repo root: the root itself (as given
    and resolved) and each of the transcript's cwds (``cwd``: one, or all the session
    recorded) that is neither scratch space nor inside another (the cwd follows the
    agent's ``cd``: a session moves into the repo's folders, a worktree elsewhere, or from
    the folder it started in into the repo), longest first so a nested one wins.
    """

    root: Path
    cwd: str | tuple[str, ...] | None = None
    bases: tuple[str, ...] = field(init=False)
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    _seen: dict[str, str | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        roots = {str(self.root).rstrip("/"), str(self.root.resolve()).rstrip("/")}
        cwds = (self.cwd,) if isinstance(self.cwd, str) else self.cwd or ()
        given = {posix_path(c).rstrip("/") for c in cwds if c and _absolute(c)}
        given -= {c for c in given if c in _SCRATCH or c.startswith(_SCRATCH_PREFIXES)}
        outer = roots | given
        candidates = roots | {c for c in given if not any(c.startswith(o + "/") for o in outer)}
        bases = sorted((b for b in candidates if b), key=len, reverse=True)
        object.__setattr__(self, "bases", tuple(bases))
        names = {PurePosixPath(b).name for b in bases}
        object.__setattr__(self, "_names", frozenset(n for n in names if n))
        object.__setattr__(self, "_seen", {})

    def rel(self, path: str) -> str | None:
        """``path`` relative to the repo (POSIX) when it lies inside it, else None."""
        if not path:
            return None
        path = posix_path(path)
        if not _absolute(path):
            clean = path[2:] if path.startswith("./") else path
            return None if clean.startswith("../") or not clean else clean
        if path not in self._seen:
            self._seen[path] = self._inside(path)
        return self._seen[path]

    def _inside(self, path: str) -> str | None:
        for base in self.bases:
            if path.startswith(base + "/"):
                return _WORKTREE.sub("", path[len(base) + 1 :].strip("/")) or None
        # (a drive path is no POSIX path: realpath would join it to the process's cwd)
        real = os.path.realpath(path) if path.startswith("/") else path
        if real != path and any(real.startswith(base + "/") for base in self.bases):
            return self._inside(real)
        parts = path.split("/")
        for at, part in enumerate(parts[:-1]):
            rest = "/".join(parts[at + 1 :]).strip("/")
            if part in self._names and rest and (self.root / rest).exists():
                return _WORKTREE.sub("", rest)
        return None

    def scrub(self, text: str) -> str:
        """Absolute paths inside the repo written relative; other home paths masked."""

        def relative(value: str) -> str:
            if value in self.bases:
                return "."
            return self.rel(value) or value

        text = _WINDOWS_ABS.sub(lambda m: relative(posix_path(m.group(1))), text)
        return mask_home(_ABS_PATH.sub(lambda m: relative(m.group(1)), text))
