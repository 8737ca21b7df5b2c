"""What capture may store: a candidate knowledge item with its idempotence reference.

Every candidate carries a ``ref`` unique within its session ("commit:<sha>",
"errfix:<tool call id>", "qa:<hash>", ...). Capture records the refs it has stored in the
session, and checks ``(source, source_ref)`` in the knowledge store, so capturing the same
session again adds nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

_ABS_PATH = re.compile(r"(?<![\w.])(/[^\s'\"`:;,()<>]+)")


@dataclass(frozen=True)
class Candidate:
    ref: str
    type: str  # "Learning" | "Pattern" | "Mistake"
    content: str
    files: tuple[str, ...] = ()
    code_area: str | None = None
    confidence: float = 0.7
    source: str = "transcript"
    # A Learning the Mistake LED_TO (an error and the change that fixed it).
    fixed_by: Candidate | None = None


def text_hash(text: str, length: int = 12) -> str:
    normal = " ".join(text.split()).lower()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:length]


def relative_to_root(path: str, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX) when it lies inside it, else None."""
    from kgraph.knowledge.areas import relative_path

    rel = relative_path(path, root)
    if not rel or rel.startswith("/") or rel.startswith("../") or rel == "..":
        return None
    return rel


def relativise_text(text: str, root: Path) -> str:
    """Absolute paths inside ``root`` written relative (``/repo/src/a.py`` → ``src/a.py``)."""
    prefix = str(root.resolve()).rstrip("/") + "/"
    plain = str(root).rstrip("/") + "/"

    def replace(match: re.Match[str]) -> str:
        value = match.group(1)
        for base in (prefix, plain):
            if value.startswith(base):
                return value[len(base) :] or "."
        return value

    return _ABS_PATH.sub(replace, text)
