"""Paths in captured text: the transcript's own working directory mapped onto the repo root,
home directories masked.

A transcript records the directory Claude Code ran in (``cwd``), which is often not the
directory the capture worker runs in: another clone, another machine, a moved checkout.
Paths under either directory are written repo-relative; any other path under a home
directory (``/Users/<name>``, ``/home/<name>``, ``/root``) is written with ``~`` so no stored
item or session row holds one person's absolute home path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_ABS_PATH = re.compile(r"(?<![\w.~])(/[^\s'\"`:;,()<>\]\[{}|*]+)")
_HOME = re.compile(r"(?<![\w.])/(?:Users|home)/[^/\s'\"`:;,()<>]+|(?<![\w.])/root(?=/|\b)")


def mask_home(text: str) -> str:
    """``/Users/ann/x`` and ``/home/ann/x`` → ``~/x`` (and ``/root/x`` → ``~/x``); so is this
    user's home wherever it is."""
    home = str(Path.home()).rstrip("/")
    if len(home) > 1 and home in text:
        text = re.sub(re.escape(home) + r"(?=/|\b)", "~", text)
    return _HOME.sub("~", text)


def expand_home(path: str | None) -> str | None:
    """A stored ``~/…`` path as this user's absolute path (a stored path is masked)."""
    return os.path.expanduser(path) if path and path.startswith("~") else path


@dataclass(frozen=True)
class PathMap:
    """Maps absolute paths from a transcript onto repo-relative ones.

    ``bases`` are the directories that stand for the repo root: the root itself (as given
    and resolved) and the transcript's cwd, longest first so a nested one wins.
    """

    root: Path
    cwd: str | None = None
    bases: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        candidates = {str(self.root).rstrip("/"), str(self.root.resolve()).rstrip("/")}
        if self.cwd and self.cwd.startswith("/"):
            candidates.add(self.cwd.rstrip("/"))
        bases = sorted((b for b in candidates if b), key=len, reverse=True)
        object.__setattr__(self, "bases", tuple(bases))

    def rel(self, path: str) -> str | None:
        """``path`` relative to the repo (POSIX) when it lies inside it, else None."""
        if not path:
            return None
        if not path.startswith("/"):
            clean = path[2:] if path.startswith("./") else path
            return None if clean.startswith("../") or not clean else clean
        for base in self.bases:
            if path.startswith(base + "/"):
                rel = path[len(base) + 1 :].strip("/")
                return rel or None
        return None

    def scrub(self, text: str) -> str:
        """Absolute paths inside the repo written relative; other home paths masked."""

        def replace(match: re.Match[str]) -> str:
            value = match.group(1)
            for base in self.bases:
                if value == base:
                    return "."
                if value.startswith(base + "/"):
                    return value[len(base) + 1 :]
            return value

        return mask_home(_ABS_PATH.sub(replace, text))
