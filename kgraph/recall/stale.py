"""Stale items: knowledge that names code its files no longer hold.

An item describes the code as it stood when it was captured; capture records the code
names it writes that its files held then (:mod:`kgraph.knowledge.codenames`). Before an
item is shown, its files are read as they are now: once one of those names is gone (the
function deleted, the constant renamed), the item describes code that no longer exists and
is left out; so is an item whose files are all gone. Replaying real sessions, readers judged
such items junk: true once, wrong now, and shown to an agent that trusts what it is told.

An item stored before capture recorded its names is judged by the names it writes: left
out when it names at least two, most of which none of its files holds. Files are read once
per hook process (at most ``MAX_FILES`` per item, ``MAX_BYTES`` each). Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kgraph.knowledge.codenames import MAX_FILES, identifiers, named_code, read_source
from kgraph.recall.items import held_code
from kgraph.recall.relevance import Item, Ranked

__all__ = ["CodeCheck", "current_only"]

MIN_NAMES = 2  # without a record, fewer names say too little to judge an item stale


class CodeCheck:
    """Whether an item still describes the project's code, reading its files under
    ``root`` (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._words: dict[str, frozenset[str] | None] = {}

    def _identifiers(self, path: str) -> frozenset[str] | None:
        if path not in self._words:
            text = read_source(self.root / path)  # None: gone (or unreadable), holds nothing
            self._words[path] = None if text is None else identifiers(text)
        return self._words[path]

    def is_current(self, item: Item) -> bool:
        # The recorded code, in the data of a read-model item (JSON text) or a library one.
        held = held_code(getattr(item, "data", None))
        names = set(held) if held is not None else named_code(item.content, item.files)
        if not item.files or (held is None and len(names) < MIN_NAMES) or not names:
            return True
        files = sorted(item.files)[:MAX_FILES]  # the files capture read (codenames)
        found = [w for f in files if (w := self._identifiers(f)) is not None]
        if not found:
            return False  # every file it is about is gone
        still = sum(1 for name in names if any(name in words for words in found))
        if held is not None:
            return still == len(names)  # the code it described, all still there
        return still * 2 >= len(names)


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
