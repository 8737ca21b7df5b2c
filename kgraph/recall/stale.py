"""Stale items: knowledge that names code its files no longer hold.

An item describes the code as it stood when it was captured; capture records the code
names it writes that its files held then (:mod:`kgraph.knowledge.codenames`). Before an
item is shown, its files are read as they are now: once one of those names is gone (the
function deleted, the constant renamed), the item describes code that no longer exists and
is left out; so is an item whose files are all gone. Replaying real sessions, readers judged
such items junk: true once, wrong now, and shown to an agent that trusts what it is told.

An item learned from a commit describes the code that commit left, and its commit's change
can be rewritten while the names it writes survive ("accept both display and registry
names", of a function that later took a typed value). Capture records keys of the lines
the commit wrote (``data["wrote"]``); once it wrote at least MIN_WRITTEN and none of them
is left in its files, the item is left out. Over every commit item replaying real sessions
showed, those with no written line left were junk each time (3 of 3; 124 commits found);
in the histories of dogpile.cache, httpx and mako, about one sampled commit in thirty has
none left while its files remain. A small fix counts too: replaying a sixteenth batch of
sessions, "Fix Rate App button not dismissing view before showing system dialog" (three
lines, reverted six minutes later) was shown to a later session as if current, and read as
junk. One line alone is one rename away from gone, and says too little.

An item learned from a commit describes the code that commit left. When the commit is not
in the checkout's history (a branch's work before it is merged, or the branch the user
switched away from), that code is not the code at hand: :class:`Elsewhere` names such
items once per session, at its start (one ``git rev-list``, run while the session start
reads the recent commits), and no hook of the session shows them. Replaying real
sessions, each one shown was read as junk ("the flags are not yet wired" of a branch the
checkout had not merged). A commit whose change landed under another sha (a squash merge,
a rebase, a cherry-pick) is not elsewhere: the work tree holds the lines it added
(:func:`landed`). Without that check, a project that squash-merges its pull requests
lost what every branch's sessions learned from their commits the moment it was merged.

An item without a record (stored before capture recorded names, or learned from a commit
git does not have: a branch's commits, squash-merged under other shas) is judged by the
names it writes, once it names at least two: shown while half of them are in its files, or
more than half for a commit's message, which names the code its commit left one by one.
Replaying a repository whose sessions worked on such branches, the commit items whose files
still held exactly half of their names (``SpooledBody`` gone, the function that used it
still there) were junk each time; a compaction summary's Mistake at exactly half was
useful. Files are read once per hook process (at most ``MAX_FILES`` per item,
``MAX_BYTES`` each). Standard library only.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgraph.db.reader import ReadConnection
from kgraph.knowledge.codenames import (
    MAX_FILES,
    identifiers,
    line_keys,
    named_code,
    read_source,
    written_files,
)
from kgraph.recall.provenance import commit_items, held_code, learned_from_commit, written_keys
from kgraph.recall.relevance import Item, Ranked

if TYPE_CHECKING:
    from kgraph.runtime.git import GitRun

__all__ = ["CodeCheck", "Elsewhere", "current_only", "landed"]

MIN_NAMES = 2  # without a record, fewer names say too little to judge an item stale
MIN_WRITTEN = 2  # written lines a commit's item needs before their absence counts
# The newest items learned from commits asked about: a branch's work is recent.
MAX_COMMITS = 500
# A commit HEAD's history lacks landed when the work tree holds this share of the lines it
# added (later edits may have changed a few); lines shorter than MIN_LINE ("}", "return")
# are in every file and tell nothing. At most MAX_LANDED commits are read, newest first
# (one ``git log -p``); the older ones stay elsewhere.
LANDED_SHARE = 0.8
MIN_LINE = 8
MAX_LANDED = 40
MAX_ADDED = 200  # added lines of a commit compared


class CodeCheck:
    """Whether an item still describes the project's code, reading its files under
    ``root`` (each once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._texts: dict[str, str | None] = {}
        self._words: dict[str, frozenset[str] | None] = {}
        self._lines: dict[str, frozenset[str]] = {}

    def _text(self, path: str) -> str | None:
        if path not in self._texts:  # None: gone (or unreadable), holds nothing
            self._texts[path] = read_source(self.root / path)
        return self._texts[path]

    def _identifiers(self, path: str) -> frozenset[str] | None:
        if path not in self._words:
            text = self._text(path)
            self._words[path] = None if text is None else identifiers(text)
        return self._words[path]

    def _rewritten(self, item: Item) -> bool:
        """Whether none of the lines the item's commit wrote is left in the files capture
        read them from (:func:`~kgraph.knowledge.codenames.written_files`)."""
        wrote = written_keys(getattr(item, "data", None))
        files = written_files(item.files)
        if wrote is None or len(wrote) < MIN_WRITTEN or not files:
            return False
        for path in files:
            if path not in self._lines:
                self._lines[path] = line_keys(self._text(path) or "")
            if not self._lines[path].isdisjoint(wrote):
                return False
        return True

    def is_current(self, item: Item) -> bool:
        if self._rewritten(item):
            return False
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
        if learned_from_commit(getattr(item, "data", None)):
            return still * 2 > len(names)
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
    commit it lists is not HEAD's, unless its change landed under another sha
    (:func:`landed`). A commit git does not have is not held against its item, nor is any
    when git cannot answer (no repository, no commit yet, too slow)."""

    def __init__(self, conn: ReadConnection, root: Path) -> None:
        self.root = root
        self._commits = commit_items(conn, MAX_COMMITS)
        self._run: GitRun | None = None
        self.unanswered = False  # git was asked and gave no answer (failed, too slow)
        self.unlanded = 0  # commits kept elsewhere because git did not say if they landed
        if self._commits:
            from kgraph.runtime.git import GitRun

            shas = sorted(set(self._commits.values()))
            self._run = GitRun(root, "rev-list", "--ignore-missing", "^HEAD", *shas, "--")

    def ids(self, timeout: float) -> set[str]:
        """The ids of the items whose commits HEAD lacks and whose change did not land here
        (waiting at most ``timeout`` seconds in all; when git is too slow to say what landed,
        the commits it did not read stay elsewhere)."""
        deadline = time.monotonic() + timeout
        out = self._run.output(timeout) if self._run is not None else None
        self.unanswered = self._run is not None and out is None
        listed = out.split() if out else []
        if not listed:
            return set()
        full_shas = set(listed)
        sha_of = {  # each item's commit, as git listed it (full), when it did
            item_id: full
            for item_id, sha in self._commits.items()
            if (full := _listed_as(sha, full_shas, listed)) is not None
        }
        wanted = set(sha_of.values())
        newest = [sha for sha in listed if sha in wanted][:MAX_LANDED]
        here = landed(self.root, newest, max(0.0, deadline - time.monotonic()))
        self.unlanded = len(newest) if here is None else 0
        return {item_id for item_id, sha in sha_of.items() if sha not in (here or ())}


def _listed_as(sha: str, full_shas: set[str], listed: Sequence[str]) -> str | None:
    """``sha`` (full, or a prefix an item of a transcript's commit holds) as git listed it."""
    if len(sha) >= 40:
        return sha if sha in full_shas else None
    return next((line for line in listed if line.startswith(sha)), None)


def _added_lines(patch: str) -> dict[str, list[str]]:
    """Commit sha -> the telling lines (MIN_LINE characters or more, stripped) its patch
    adds, with their paths: ``path\0line``; from ``git log -p -U0 --format=%x1e%H``."""
    added: dict[str, list[str]] = {}
    for record in patch.split("\x1e"):
        lines = record.splitlines()
        if not lines or not lines[0].strip():
            continue
        ours = added.setdefault(lines[0].strip(), [])
        path: str | None = None
        for line in lines[1:]:
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
            elif line.startswith("+") and path and len(ours) < MAX_ADDED:
                text = line[1:].strip()
                if len(text) >= MIN_LINE:
                    ours.append(f"{path}\0{text}")
    return added


def landed(root: Path, shas: Iterable[str], timeout: float) -> set[str] | None:
    """Of ``shas`` (commits HEAD's history lacks), those whose change the work tree under
    ``root`` holds: at least LANDED_SHARE of the telling lines each added are lines of the
    same files now (a squash merge, a rebase, a cherry-pick). A commit that added no such
    line is not judged landed. One ``git log -p``; None when git fails or is too slow."""
    shas = list(shas)
    if not shas:
        return set()
    from kgraph.runtime.git import run_git

    patch = run_git(
        root,
        "log", "--no-walk=unsorted", "-p", "-U0", "--no-color", "--no-ext-diff",
        "--no-renames", "--format=%x1e%H", *shas, "--",
        timeout=timeout,
    )  # fmt: skip
    if patch is None:
        return None
    files: dict[str, frozenset[str]] = {}

    def holds(entry: str) -> bool:
        path, _, text = entry.partition("\0")
        if path not in files:
            source = read_source(root / path) if ".." not in Path(path).parts else None
            files[path] = frozenset(s.strip() for s in (source or "").splitlines())
        return text in files[path]

    here: set[str] = set()
    for sha, added in _added_lines(patch).items():
        if added and sum(map(holds, added)) >= LANDED_SHARE * len(added):
            here.add(sha)
    return here
