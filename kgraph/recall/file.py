"""File recall: what is recorded about a file the agent just read or edited.

Replaying real histories, items about the files a change touches were right 84% of the time,
while a clean-tree session start knew no files. The agent's own file tools say which files
matter, as it works: this hook injects, once per session per item, the few items about that
file (Mistakes first) and, briefly, the Mistakes and Patterns about the files it depends on
most closely (code graph). Silent when nothing clears the evidence bar (a changelog or any
file most items mention is weak evidence: :mod:`kgraph.recall.evidence`).

It runs on every file read, so its path is the standard library only (sqlite3, json): no
SQLAlchemy, ~0.1 s for the whole process.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from kgraph.codegraph.filedeps import dependencies_of, graph_present
from kgraph.db.reader import ReadConnection
from kgraph.recall.briefing import Block, fit
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.readmodel import focus_for, gather
from kgraph.recall.relevance import Ranked, rank

__all__ = ["FileRecall", "file_recall"]

# Dependencies looked at (closest first), and the items they may add: only warnings and rules.
DEPENDENCIES = 3
DEPENDENCY_ITEMS = 2
DEPENDENCY_TYPES = frozenset({"Mistake", "Pattern"})
DEPENDENCY_STRENGTH = 0.7
ITEM_CHARS = 400
DEPENDENCY_ITEM_CHARS = 200


@dataclass(frozen=True)
class FileRecall:
    """The block for one file and the ids in it (empty when there is nothing to say)."""

    text: str | None
    ids: tuple[str, ...]


def _dependency_items(
    conn: ReadConnection,
    path: str,
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime,
) -> list[Ranked]:
    if not graph_present(conn):
        return []
    closest = [f for f, _ in dependencies_of(conn, path, DEPENDENCIES)]
    if not closest:
        return []
    strength = {f: DEPENDENCY_STRENGTH for f in closest}
    reasons = {f: "in its dependency" for f in closest}
    focus = focus_for(conn, settings, files=strength, reasons=reasons)
    candidates = [i for i in gather(conn, focus) if i.type in DEPENDENCY_TYPES]
    ranked = [r for r in rank(candidates, focus, now) if r.item.id not in exclude]
    return ranked[:DEPENDENCY_ITEMS]


def file_recall(
    conn: ReadConnection,
    path: str,
    *,
    settings: EvidenceSettings,
    exclude: set[str],
    max_items: int,
    max_chars: int,
    now: datetime | None = None,
) -> FileRecall:
    """What to inject for the repo-relative ``path``: its own items not in ``exclude``
    (best first, at most ``max_items``), then up to two Mistakes/Patterns of its closest
    dependencies."""
    now = now or datetime.now(UTC)
    if max_items <= 0:
        return FileRecall(None, ())
    focus = focus_for(conn, settings, files={path: 1.0}, reasons={path: "about"})
    own = [r for r in rank(gather(conn, focus), focus, now) if r.item.id not in exclude]
    own = [Ranked(r.item, r.score, "") for r in own[:max_items]]
    taken = exclude | {r.item.id for r in own}
    deps = _dependency_items(conn, path, settings, taken, now)
    if not own and not deps:
        return FileRecall(None, ())
    block = Block(
        title=f"kgraph: recorded about {path} in earlier sessions "
        "(`kgraph knowledge show ID` prints one in full):",
        group_by_area=False,
        item_chars=ITEM_CHARS,
        tail_title="From the files it depends on:",
        tail_chars=DEPENDENCY_ITEM_CHARS,
    )
    text, chosen = fit(own, block, max_chars, max_items, deps)
    return FileRecall(text, tuple(r.item.id for r in chosen))
