"""The project's recent history: what a prompt's matches among the history are trusted for.

A prompt mostly continues recent work: a review of the change just made, a bug in what
the last merges brought, the next step of a plan. Its words and code names match items
of the whole history, and the older an item, the likelier such a match is chance: the
history has many more old commits than recent ones. Replaying real sessions of two
repositories, the items learned from commits that a prompt brought were useful 8 times in
10 when their commit was among the latest 20 changes on HEAD's line, and 1 time
in 15 otherwise (3 of those junk: what they described had changed since). A file the agent
opens is different evidence: there the commit's age told nothing (:mod:`kgraph.recall.file`
does not ask).

So the session start asks git once (``git rev-list --boundary HEAD~N..HEAD``: the commits
the latest N first-parent steps brought, a merged branch's own commits included however
long ago they were written, and when the change before them was made), started beside its
``git status``; the seen file keeps them (:class:`kgraph.runtime.seen.Recent`), and the prompt
hook brings an item learned from a commit only when the commit is one of them or the item
was learned since (a session's own commit, rebased since under another sha, is as recent
as its session). When git cannot say (no repository, a history shorter than N steps, a
shallow clone, too slow) nothing is held back. Items not learned from a commit (a session's
Mistakes, what a person wrote) are never held back, nor is an item naming code the prompt
names in a way only code is written (``async_wait_for_setup``, ``DropIndexOp``): such a
prompt asks what is known of that code, and the commit that made it is what is known, however
old. (Tried as a new user on lock_code_manager, a prompt naming ``async_wait_for_setup``
got nothing while the commit adding it was stored; replaying the real sessions of eight
repositories, no prompt named code an older item names, so nothing else changed.) Standard
library only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgraph.db.reader import ReadConnection
from kgraph.knowledge.codenames import identifiers
from kgraph.recall.provenance import FromCommit, commit_refs
from kgraph.recall.relevance import Ranked
from kgraph.runtime.seen import Recent

if TYPE_CHECKING:
    from kgraph.runtime.git import GitRun

__all__ = ["SHA_KEPT", "LatestChanges", "is_recent", "recent_only"]

# A name the prompt writes that only code would: snake_case or camelCase ("setup", "it",
# "describe" in backticks are words an item may use in passing).
_CODE_SHAPED = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Z]{2}[a-z]")
SHA_KEPT = 12  # characters of a sha the seen file keeps
# Commits kept at most (newest first): a merge of a long-lived branch may bring thousands;
# the ones past these still count when they were made since the changes began.
MAX_SHAS = 2_000


class LatestChanges:
    """The commits HEAD's latest ``steps`` first-parent steps brought (the hook setting
    ``user_prompt_history_changes``), asked of git when made and collected by
    :meth:`found`."""

    def __init__(self, root: Path, steps: int) -> None:
        from kgraph.runtime.git import GitRun

        self._run: GitRun = GitRun(
            root, "rev-list", "--boundary", "--timestamp", f"HEAD~{steps}..HEAD", "--"
        )

    def found(self, timeout: float) -> Recent | None:
        """The commits (shas cut to SHA_KEPT characters) and the newest commit time of the
        boundary they follow; None when git gave no answer."""
        out = self._run.output(timeout)
        shas: set[str] = set()
        since: list[float] = []
        for line in (out or "").splitlines():
            stamp, _, sha = line.strip().partition(" ")
            if not stamp.isdigit() or not sha:
                continue
            if sha.startswith("-"):  # a boundary commit: HEAD~N (or an older fork point)
                since.append(float(stamp))
            elif len(shas) < MAX_SHAS:
                shas.add(sha[:SHA_KEPT])
        return Recent(max(since), frozenset(shas)) if since else None


def is_recent(item_id: str, learned: Mapping[str, FromCommit], recent: Recent | None) -> bool:
    """Whether ``item_id`` may come on a prompt: not learned from a commit (``learned``:
    id -> the commit of the items that were), or its commit is one of the ``recent``
    changes' or it was learned since they began (None: not known, everything may come)."""
    commit = learned.get(item_id)
    if recent is None or commit is None:
        return True
    if commit.at is not None and commit.at.timestamp() >= recent.since:
        return True
    if len(commit.sha) >= SHA_KEPT:
        return commit.sha[:SHA_KEPT] in recent.shas
    return any(kept.startswith(commit.sha) for kept in recent.shas)  # a short sha


def recent_only(
    conn: ReadConnection,
    ranked: Sequence[Ranked],
    recent: Recent | None,
    named: Collection[str] = (),
) -> tuple[list[Ranked], int]:
    """``ranked`` less the items learned from commits before the ``recent`` changes (all
    of it when they are not known), and how many were left out. An item naming code the
    prompt names (``named``: its identifiers, last dotted part) is kept however old."""
    if recent is None or not ranked:
        return list(ranked), 0
    learned = commit_refs(conn, [r.item.id for r in ranked])
    names = frozenset(n for n in (n.rsplit(".", 1)[-1] for n in named) if _CODE_SHAPED.search(n))
    kept = [
        r
        for r in ranked
        if is_recent(r.item.id, learned, recent)
        or (names and not names.isdisjoint(identifiers(r.item.content)))
    ]
    return kept, len(ranked) - len(kept)
