"""Home directories masked: no stored item, session row or export holds one person's
absolute home path (``/Users/ann``, ``/home/ann``, ``/root``, ``C:\\Users\\ann``), which says
who ran the session and where, and means nothing on another machine."""

from __future__ import annotations

import os
import re
from pathlib import Path

# A home directory ends where the path goes on ("/") or the path ends: "/root" of
# "cmd/app/root.go" or "/root.go" is no home.
_END = r"(?=/|(?![\w.-]))"
_HOME = re.compile(
    r"(?<![\w.~-])/(?:Users|home)/[^/\s'\"`:;,()<>]+|(?<![\w.~-])/root" + _END + "|"
    r"(?<![\w.])[A-Za-z]:[\\/]+Users[\\/]+[^\\/\s'\"`:;,()<>]+"
)


def mask_home(text: str) -> str:
    """``/Users/ann/x``, ``/home/ann/x`` and ``C:\\Users\\ann\\x`` → ``~/x``, ``~\\x`` (and
    ``/root/x`` → ``~/x``); so is this user's home wherever it is."""
    home = str(Path.home()).rstrip("/")
    if len(home) > 1 and home in text:
        text = re.sub(r"(?<![\w.~-])" + re.escape(home) + _END, "~", text)
    return _HOME.sub("~", text)


def expand_home(path: str | None) -> str | None:
    """A stored ``~/…`` path as this user's absolute path (a stored path is masked)."""
    return os.path.expanduser(path) if path and path.startswith("~") else path
