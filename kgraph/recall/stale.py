"""Stale items: knowledge that names code its files no longer hold.

An item describes the code as it stood when it was captured; capture records the code
names it writes that its files held then (:mod:`kgraph.knowledge.codenames`). Before an
item is shown, its files are read as they are now: once one of those names is gone (the
function deleted, the constant renamed), the item describes code that no longer exists and
is left out; so is an item whose files are all gone. Replaying real sessions, readers judged
such items junk: true once, wrong now, and shown to an agent that trusts what it is told.

An item learned from a commit describes the code that commit left. When the commit is not
in the checkout's history (a branch's work before it is merged, or the branch the user
switched away from), that code is not the code at hand: :class:`Elsewhere` names such
items once per session, at its start (one ``git rev-list``, run while the session start
reads the recent commits), and no hook of the session shows them. Replaying real
sessions, each one shown was read as junk ("the flags are not yet wired" of a branch the
checkout had not merged).

An item stored before capture recorded its names is judged by the names it writes: left
out when it names at least two, most of which none of its files holds. Files are read once
per hook process (at most ``MAX_FILES`` per item, ``MAX_BYTES`` each). Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgraph.db.reader import ReadConnection
from kgraph.knowledge.codenames import MAX_FILES, identifiers, named_code, read_source
from kgraph.recall.items import commit_items, held_code
from kgraph.recall.relevance import Item, Ranked

if TYPE_CHECKING:
    from kgraph.runtime.git import GitRun

__all__ = ["CodeCheck", "Elsewhere", "current_only"]

MIN_NAMES = 2  # without a record, fewer names say too little to judge an item stale
# The newest items learned from commits asked about: a branch's work is recent.
MAX_COMMITS = 500


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


class Elsewhere:
    """The items learned from a commit that HEAD's history under ``root`` lacks, asked of
    git when made and collected by :meth:`ids` (the session start works on meanwhile).
    ``git rev-list ^HEAD SHA...`` lists what the commits reach that HEAD does not, so a
    commit it lists is not HEAD's. A commit git does not have is not held against its item,
    nor is any when git cannot answer (no repository, no commit yet, too slow)."""

    def __init__(self, conn: ReadConnection, root: Path) -> None:
        self._commits = commit_items(conn, MAX_COMMITS)
        self._run: GitRun | None = None
        self.unanswered = False  # git was asked and gave no answer (failed, too slow)
        if self._commits:
            from kgraph.runtime.git import GitRun

            shas = sorted(set(self._commits.values()))
            self._run = GitRun(root, "rev-list", "--ignore-missing", "^HEAD", *shas, "--")

    def ids(self, timeout: float) -> set[str]:
        out = self._run.output(timeout) if self._run is not None else None
        self.unanswered = self._run is not None and out is None
        listed = set(out.split()) if out else set()
        if not listed:
            return set()
        return {
            item_id
            for item_id, sha in self._commits.items()
            if sha in listed or (len(sha) < 40 and any(line.startswith(sha) for line in listed))
        }
