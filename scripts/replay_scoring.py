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
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    broadest: tuple[StoredItem, ...] = ()  # the items about the most files, at the same K


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
    broadest_precision: float | None = None


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
        recent, broad = tuple(recency_top(items, k)), tuple(broadest_top(items, k))
        found.append(Outcome(commit, chosen, recent, bm25, broad))
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
    broad = [(o.commit, o.broadest) for o in found]
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
        broadest_precision=_precision(broad, hubs),
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


def _render(rows: Sequence[Sequence[str]]) -> str:
    """Fixed-width columns: the first left-aligned, the rest right; a rule under the header."""
    widths = [max(len(r[n]) for r in rows) for n in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if n == 0 else c.rjust(w)
            for n, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


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
    "broadest P",
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
                _cell(s.broadest_precision),
            ]
        )
    return _render(rows)


# --- Relevance finer than the file -------------------------------------------------------
#
# An item fits the change when it **names** a function, class or file the commit changes
# (replay_symbols.Change.named_by). Baselines at the same K, each with no ranking at all:
# per hook call, the newest items about the call's file (what "recent knowledge about this
# file" gives); per session, the broadest items (most files: a fixed list that fits many
# sessions a little).

FINE_MODES = ("clean", "prompt", "file-triggered", "edit")


def newest_about(
    items: Sequence[StoredItem], path: str, k: int, taken: set[str]
) -> list[StoredItem]:
    """The ``k`` newest items about ``path`` not in ``taken`` (ties: id)."""
    about = [i for i in items if path in i.files and i.id not in taken]
    return sorted(about, key=lambda i: (-i.order, i.id))[:k]


def broadest_top(items: Sequence[StoredItem], k: int) -> list[StoredItem]:
    """The ``k`` items about the most files (ties: the newer first)."""
    return sorted(items, key=lambda i: (-len(i.files), -i.order, i.id))[:k]


@dataclass(frozen=True)
class FineOutcome:
    """One session in one mode, judged by what the commit's change names."""

    named: Callable[[str], bool]  # does a text name what the commit changes?
    commit: Commit
    injected: tuple[StoredItem, ...]
    newest_file: tuple[StoredItem, ...] | None  # per-call baseline (file-triggered modes)
    broadest: tuple[StoredItem, ...]
    bm25: tuple[StoredItem, ...] | None


def fine_outcome(
    mode: str,
    commit: Commit,
    named: Callable[[str], bool],
    injected: Sequence[str],
    calls: Sequence[tuple[str, Sequence[str]]] | None,
    items: Sequence[StoredItem],
    index: BM25,
) -> FineOutcome:
    """The session's outcome in ``mode`` with its baselines at the same K."""
    by_id = {i.id: i for i in items}
    chosen = tuple(by_id[i] for i in injected if i in by_id)
    newest: list[StoredItem] | None = None
    if calls is not None:
        newest, taken = [], set()
        for path, ids in calls:
            found = newest_about(items, path, sum(i in by_id for i in ids), taken)
            taken.update(i.id for i in found)
            newest += found
    k = len(chosen)
    return FineOutcome(
        named,
        commit,
        chosen,
        None if newest is None else tuple(newest),
        tuple(broadest_top(items, k)),
        tuple(bm25_top(items, index, commit.subject, k)) if mode == "prompt" else None,
    )


def _fine_precision(
    outcomes: Sequence[FineOutcome], pick: Callable[[FineOutcome], Sequence[StoredItem] | None]
) -> tuple[float | None, float | None]:
    """(share naming what changed, share about a changed file) of the picked items."""
    shown = named = filed = 0
    for o in outcomes:
        chosen = pick(o)
        if chosen is None:
            return None, None
        shown += len(chosen)
        named += sum(o.named(i.content) for i in chosen)
        filed += sum(is_relevant(i, o.commit) for i in chosen)
    return (named / shown, filed / shown) if shown else (None, None)


@dataclass(frozen=True)
class FineScore:
    """One mode's precision by symbol and by file, and its baselines' (None: not run)."""

    mode: str
    items_per_session: float
    symbol: float | None
    file: float | None
    newest_symbol: float | None
    newest_file: float | None
    broadest_symbol: float | None
    broadest_file: float | None
    bm25_symbol: float | None


def fine_score(mode: str, found: Sequence[FineOutcome]) -> FineScore:
    own = _fine_precision(found, lambda o: o.injected)
    newest = _fine_precision(found, lambda o: o.newest_file)
    broad = _fine_precision(found, lambda o: o.broadest)
    bm25 = _fine_precision(found, lambda o: o.bm25)
    per = sum(len(o.injected) for o in found) / len(found) if found else 0.0
    return FineScore(mode, per, *own, *newest, *broad, bm25[0])


FINE_HEADER = (
    "mode",
    "items/sess",
    "P symbol",
    "P file",
    "newest-of-file P sym",
    "P sym/newest",
    "broadest P sym",
    "broadest P file",
    "BM25 P sym",
)


def fine_table(scores: Sequence[FineScore]) -> str:
    """One row per mode: symbol and file precision beside the no-ranking baselines."""
    rows = [list(FINE_HEADER)]
    for s in scores:
        rows.append(
            [
                s.mode,
                _cell(s.items_per_session, 1),
                _cell(s.symbol),
                _cell(s.file),
                _cell(s.newest_symbol) if s.newest_symbol is not None else "-",
                _ratio(s.symbol, s.newest_symbol) if s.newest_symbol is not None else "-",
                _cell(s.broadest_symbol),
                _cell(s.broadest_file),
                _cell(s.bm25_symbol) if s.bm25_symbol is not None else "-",
            ]
        )
    return _render(rows)
