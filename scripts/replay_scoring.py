"""Scoring replayed sessions: relevance, coverage, precision, recall@K, and the baselines.

An injected item is relevant to a session when it is about a file the session's commit
changed. Hub files (changed by a large share of the commits: changelogs, version files) make
almost every item "relevant" to almost every session, so each score is given twice: with
every shared file counting, and with hub files left out.

- coverage: share of sessions with at least one injected item;
- precision: relevant injected items / injected items, over all sessions (micro);
- recall@K: per session, relevant injected / relevant stored items (K = the number the hook
  injected), averaged over the sessions that have a relevant stored item;
- baselines at the same K per session: the K most recent learnings, and (prompt mode) the K
  best BM25 matches of the commit subject over the learning texts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from replay_history import Commit
from replay_sessions import MODES, StoredItem

_TOKEN = re.compile(r"[a-z0-9_]{2,}")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over a fixed list of documents (k1 = 1.2, b = 0.75)."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(tokens(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.docs) if self.docs else 0.0
        df = Counter(t for d in self.docs for t in d)
        n = len(self.docs)
        self.idf = {t: math.log((n - f + 0.5) / (f + 0.5) + 1) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = set(tokens(query))
        out = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avg) if self.avg else self.k1
            for term in terms & doc.keys():
                tf = doc[term]
                score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            out.append(score)
        return out


def is_relevant(item: StoredItem, commit: Commit, hubs: frozenset[str] = frozenset()) -> bool:
    """The item is about a file the commit changed (hub files left out)."""
    return bool(set(item.files) & (set(commit.files) - hubs))


def recency_top(items: Sequence[StoredItem], k: int) -> list[StoredItem]:
    """The ``k`` most recent learnings (latest commit first)."""
    return sorted(items, key=lambda i: (-i.order, i.id))[:k]


def bm25_top(items: Sequence[StoredItem], index: BM25, query: str, k: int) -> list[StoredItem]:
    """The ``k`` best BM25 matches of ``query`` (ties: the more recent first)."""
    scores = index.scores(query)
    ranked = sorted(range(len(items)), key=lambda n: (-scores[n], -items[n].order, items[n].id))
    return [items[n] for n in ranked[:k]]


@dataclass(frozen=True)
class Outcome:
    """One session in one mode: what was injected, what a baseline would have given."""

    commit: Commit
    injected: tuple[StoredItem, ...]
    recency: tuple[StoredItem, ...]
    bm25: tuple[StoredItem, ...] | None  # None: no BM25 baseline for this mode


@dataclass(frozen=True)
class Score:
    """One mode's scores under one relevance rule (None: not measurable)."""

    mode: str
    sessions: int
    coverage: float | None
    items_per_session: float | None
    precision: float | None
    recall: float | None
    recency_precision: float | None
    recency_recall: float | None
    bm25_precision: float | None
    bm25_recall: float | None


def outcomes(
    mode: str,
    runs: Sequence[tuple[Commit, Mapping[str, list[str] | None]]],
    items: Sequence[StoredItem],
    index: BM25,
) -> list[Outcome] | None:
    """Each session's outcome in ``mode``; None when the mode's hook was missing."""
    by_id = {i.id: i for i in items}
    found = []
    for commit, injected in runs:
        ids = injected.get(mode)
        if ids is None:
            return None
        chosen = tuple(by_id[i] for i in ids if i in by_id)
        k = len(chosen)
        bm25 = tuple(bm25_top(items, index, commit.subject, k)) if mode == "prompt" else None
        found.append(Outcome(commit, chosen, tuple(recency_top(items, k)), bm25))
    return found


def _precision(
    pairs: Iterable[tuple[Commit, Sequence[StoredItem]]], hubs: frozenset[str]
) -> float | None:
    shown = relevant = 0
    for commit, chosen in pairs:
        shown += len(chosen)
        relevant += sum(is_relevant(i, commit, hubs) for i in chosen)
    return relevant / shown if shown else None


def _recall(
    pairs: Iterable[tuple[Commit, Sequence[StoredItem]]],
    items: Sequence[StoredItem],
    hubs: frozenset[str],
) -> float | None:
    values = []
    for commit, chosen in pairs:
        wanted = sum(is_relevant(i, commit, hubs) for i in items)
        if wanted:
            values.append(sum(is_relevant(i, commit, hubs) for i in chosen) / wanted)
    return sum(values) / len(values) if values else None


def score(
    mode: str,
    found: Sequence[Outcome] | None,
    items: Sequence[StoredItem],
    hubs: frozenset[str] = frozenset(),
) -> Score:
    """The scores of one mode; every number None when the mode could not run."""
    if found is None or not found:
        return Score(mode, 0, None, None, None, None, None, None, None, None)
    shown = [(o.commit, o.injected) for o in found]
    recent = [(o.commit, o.recency) for o in found]
    bm25 = [(o.commit, o.bm25) for o in found if o.bm25 is not None]
    return Score(
        mode=mode,
        sessions=len(found),
        coverage=sum(bool(o.injected) for o in found) / len(found),
        items_per_session=sum(len(o.injected) for o in found) / len(found),
        precision=_precision(shown, hubs),
        recall=_recall(shown, items, hubs),
        recency_precision=_precision(recent, hubs),
        recency_recall=_recall(recent, items, hubs),
        bm25_precision=_precision(bm25, hubs) if bm25 else None,
        bm25_recall=_recall(bm25, items, hubs) if bm25 else None,
    )


@dataclass(frozen=True)
class Ground:
    """How much relevant knowledge the store held for the sessions (what recall is out of)."""

    sessions_with_relevant: int
    mean_relevant: float


def ground(
    commits: Sequence[Commit], items: Sequence[StoredItem], hubs: frozenset[str] = frozenset()
) -> Ground:
    counts = [sum(is_relevant(i, c, hubs) for i in items) for c in commits]
    return Ground(sum(n > 0 for n in counts), sum(counts) / len(counts) if counts else 0.0)


def _cell(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or base is None:
        return "n/a"
    return "inf" if base == 0 else f"{value / base:.1f}x"


HEADER = (
    "mode",
    "sessions",
    "coverage",
    "items/sess",
    "precision",
    "recall@K",
    "recency P",
    "recency R@K",
    "P/recency",
    "BM25 P",
    "BM25 R@K",
    "P/BM25",
)


def table(scores: Sequence[Score]) -> str:
    """A fixed-width table, one row per mode, in :data:`MODES` order."""
    rows = [list(HEADER)]
    for s in sorted(scores, key=lambda s: MODES.index(s.mode)):
        rows.append(
            [
                s.mode,
                str(s.sessions) if s.sessions else "n/a",
                _cell(s.coverage),
                _cell(s.items_per_session, 1),
                _cell(s.precision),
                _cell(s.recall),
                _cell(s.recency_precision),
                _cell(s.recency_recall),
                _ratio(s.precision, s.recency_precision),
                _cell(s.bm25_precision) if s.bm25_precision is not None else "-",
                _cell(s.bm25_recall) if s.bm25_recall is not None else "-",
                _ratio(s.precision, s.bm25_precision) if s.bm25_precision is not None else "-",
            ]
        )
    widths = [max(len(r[n]) for r in rows) for n in range(len(HEADER))]
    lines = [
        "  ".join(
            c.ljust(w) if n == 0 else c.rjust(w)
            for n, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
