"""Paths in captured text: the transcript's own working directory mapped onto the repo root,
home directories masked.

A transcript records the directory Claude Code ran in (``cwd``), which is often not the
directory the capture worker runs in: another clone, another machine, a moved checkout.
Paths under either directory are written repo-relative; any other path under a home
directory (``/Users/<name>``, ``/home/<name>``, ``/root``, ``C:\\Users\\<name>``) is written
with ``~`` (:mod:`kgraph.redact.home`). A session recorded on Windows has Windows paths;
they map the same way (:func:`posix_path`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.redact.home import mask_home

__all__ = ["PathMap", "posix_path"]

_ABS_PATH = re.compile(r"(?<![\w.~])(/[^\s'\"`:;,()<>\]\[{}|*]+)")
# A Windows absolute path (a session recorded on Windows: ``C:\\Users\\ann\\repo\\x.py``)
_WINDOWS_ABS = re.compile(r"(?<![\w.~])([A-Za-z]:[\\/][^\s'\"`:;,()<>\]\[{}|*]*)")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def posix_path(path: str) -> str:
    """``path`` with a Windows drive path written POSIX-style (``C:\\x\\y`` → ``C:/x/y``, the
    drive letter upper-case), so one recorded on Windows maps like any other."""
    if not _DRIVE.match(path):
        return path
    return path[0].upper() + path[1:].replace("\\", "/")


def _absolute(path: str) -> bool:
    return path.startswith("/") or bool(_DRIVE.match(path))


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
        if self.cwd and _absolute(self.cwd):
            candidates.add(posix_path(self.cwd).rstrip("/"))
        bases = sorted((b for b in candidates if b), key=len, reverse=True)
        object.__setattr__(self, "bases", tuple(bases))

    def rel(self, path: str) -> str | None:
        """``path`` relative to the repo (POSIX) when it lies inside it, else None."""
        if not path:
            return None
        path = posix_path(path)
        if not _absolute(path):
            clean = path[2:] if path.startswith("./") else path
            return None if clean.startswith("../") or not clean else clean
        for base in self.bases:
            if path.startswith(base + "/"):
                rel = path[len(base) + 1 :].strip("/")
                return rel or None
        return None

    def scrub(self, text: str) -> str:
        """Absolute paths inside the repo written relative; other home paths masked."""

        def relative(value: str) -> str:
            for base in self.bases:
                if value == base:
                    return "."
                if value.startswith(base + "/"):
                    return value[len(base) + 1 :]
            return value

        text = _WINDOWS_ABS.sub(lambda m: relative(posix_path(m.group(1))), text)
        return mask_home(_ABS_PATH.sub(lambda m: relative(m.group(1)), text))
