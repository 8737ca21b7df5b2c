"""Stale items: knowledge that names code its files no longer hold.

A commit message describes the code as the commit left it. Months later the function it
names may be gone, the constant renamed, the state machine rewritten; the message is still
stored, still about the same files, and a hook would still show it. Replaying real
sessions, such items were most of what was judged junk: true once, wrong now, and shown
to an agent that trusts what it is told.

So before an item is shown, the code names it writes (``CamelCase``, ``lowerCamel``,
``snake_case``, ``SCREAMING_CASE``, of 6+ characters) are looked for in the current text
of the files it is about. An item naming at least two of them, most of which none of its
files holds any more, is left out; so is an item whose files are all gone. An item naming
fewer says too little to judge and is kept. Files are read once per hook process (at most
``MAX_FILES`` per item, ``MAX_BYTES`` each). Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from kgraph.recall.relevance import Item, Ranked

__all__ = ["CodeCheck", "current_only", "named_code"]

MIN_NAME = 6
MIN_NAMES = 2  # fewer names say too little to judge an item stale
MAX_FILES = 6
MAX_BYTES = 2_000_000
_CODE_NAME = re.compile(
    r"(?<![\w./-])(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
    r"|[a-z][a-z0-9]*_[a-z0-9_]+)(?![\w/-])"
)


def named_code(text: str) -> set[str]:
    """The code names ``text`` writes (see the module docstring)."""
    return {m.group(0) for m in _CODE_NAME.finditer(text) if len(m.group(0)) >= MIN_NAME}


class CodeCheck:
    """Whether an item still describes the project's code, reading its files under
    ``root`` (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._texts: dict[str, str | None] = {}

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            try:
                with (self.root / path).open("rb") as handle:
                    self._texts[path] = handle.read(MAX_BYTES).decode("utf-8", "replace")
            except OSError:  # gone (or unreadable): it holds nothing
                self._texts[path] = None
        return self._texts[path]

    def is_current(self, item: Item) -> bool:
        names = named_code(item.content) - {Path(f).stem for f in item.files}
        if len(names) < MIN_NAMES or not item.files:
            return True
        texts = [t for f in item.files[:MAX_FILES] if (t := self._text(f)) is not None]
        if not texts:
            return False  # every file it is about is gone
        found = sum(1 for name in names if any(name in text for text in texts))
        return found * 2 >= len(names)


def current_only(ranked: Sequence[Ranked], check: CodeCheck | None, need: int) -> list[Ranked]:
    """The first ``need`` of ``ranked`` that ``check`` finds current (the first ``need``
    without a check); items past those are not read."""
    if check is None:
        return list(ranked[:need])
    kept: list[Ranked] = []
    for entry in ranked:
        if len(kept) >= need:
            break
        if check.is_current(entry.item):
            kept.append(entry)
    return kept
