"""Ranking knowledge for what a session is about: one scoring function for every hook.

An item earns relevance only through evidence that ties it to the session (DESIGN:
"injection was essentially random" in the previous tool):

- a **file** of the session (changed now, triggered by a tool, or part of recent work),
  worth its strength times the file's evidence weight (rare files strong, hub and weak
  files weak: :mod:`kgraph.recall.evidence`), divided among the item's own files (an
  item about twenty files says little about each);
- a file that **depends on** a session file (blast radius), worth less with each level,
  for Mistakes and Patterns (what breaks downstream), not every learning about a neighbour;
- the session's **code area**, weighted by the area's rarity (most areas are broad);
- the branch's **issue**.

Below ``MIN_EVIDENCE`` an item is not injected at all. Mistakes weigh most, then Patterns;
confidence and recency only break ties. Pure functions (stdlib only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

__all__ = [
    "MIN_EVIDENCE",
    "Focus",
    "Item",
    "Ranked",
    "rank",
    "score_item",
    "standing",
    "tie_break",
]

MIN_EVIDENCE = 0.15
TYPE_FACTOR = {"Mistake": 1.5, "Pattern": 1.2, "Learning": 1.0, "Topic": 0.6}
DEPENDENT_FACTOR = 0.5  # a file depending on a session file, at depth 1
AREA_FACTOR = 0.3
BROAD_ITEM_FILES = 20
ISSUE_EVIDENCE = 1.0
# Knowledge reached only through the code graph (a file depending on the session's, or one
# it depends on) counts when it warns or rules: replayed histories showed general learnings
# about neighbouring files were never about the change.
NEIGHBOUR_TYPES = frozenset({"Mistake", "Pattern"})


class Item(Protocol):
    """What ranking needs of a knowledge item (kgraph.recall.items.RecallItem)."""

    @property
    def id(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def issue_number(self) -> int | None: ...
    @property
    def code_areas(self) -> tuple[str, ...]: ...
    @property
    def files(self) -> tuple[str, ...]: ...
    @property
    def updated_at(self) -> Any: ...


def _never_weak(_path: str) -> bool:
    return False


@dataclass(frozen=True)
class Focus:
    """What a session is about, and how strongly.

    ``files``: path -> strength in (0, 1] (1 for a file changed now or just read/edited,
    less for recent work); ``reasons``: path -> the words shown beside an item it brought
    ("changed", "edited in a recent session", "{} defines Foo"); ``dependents``: path ->
    blast-radius depth; ``weights``: file path or area name -> evidence weight (missing = 1).
    """

    files: Mapping[str, float] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    dependents: Mapping[str, int] = field(default_factory=dict)
    areas: tuple[str, ...] = ()
    issue_number: int | None = None
    weights: Mapping[str, float] = field(default_factory=dict)
    is_weak: Callable[[str], bool] = _never_weak

    def weight(self, name: str) -> float:
        return self.weights.get(name, 1.0)

    def reason(self, path: str) -> str:
        """The words for a file: its reason with ``{}`` replaced by the path, else the
        reason followed by the path ("changed src/a.py")."""
        reason = self.reasons.get(path, "about")
        return reason.replace("{}", path) if "{}" in reason else f"{reason} {path}"


@dataclass(frozen=True)
class Ranked:
    item: Item
    score: float
    why: str  # short reason shown beside the item
    via: str | None = None  # the session file that brought the item, if one did


def _age_days(value: Any, now: datetime) -> float:
    if not isinstance(value, datetime):
        return 365.0
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return max(0.0, float((now - value).total_seconds()) / 86_400)


def specificity(item: Item, is_weak: Callable[[str], bool]) -> float:
    """How much of the item is about any one of its files: 1 for one file, 1/sqrt(n) for n
    (weak files such as a changelog not counted), 0 for a sweep over more than
    BROAD_ITEM_FILES files (a reformatting, a rename, a modernisation: about none of them)."""
    strong = sum(1 for f in item.files if not is_weak(f))
    if strong > BROAD_ITEM_FILES:
        return 0.0
    return 1.0 / math.sqrt(max(1, strong))


def score_item(item: Item, focus: Focus, now: datetime | None = None) -> Ranked | None:
    """The item's relevance to ``focus``; None when its evidence is below MIN_EVIDENCE."""
    now = now or datetime.now(UTC)
    spec = specificity(item, focus.is_weak)
    direct = [(focus.files[f] * focus.weight(f), f) for f in item.files if f in focus.files]
    evidence = sum(v for v, _ in direct) * spec
    why: list[str] = []
    via: str | None = None
    if direct:
        best = via = max(direct)[1]
        more = f" (+{len(direct) - 1})" if len(direct) > 1 else ""
        why.append(focus.reason(best) + more)
    dependents = [
        (DEPENDENT_FACTOR / max(1, focus.dependents[f]) * focus.weight(f), f)
        for f in item.files
        if f in focus.dependents and f not in focus.files
    ]
    if dependents and (direct or item.type in NEIGHBOUR_TYPES):
        value, path = max(dependents)
        evidence += value * spec
        if not direct:
            via = path
            why.append(f"{path} depends on it")
    if focus.issue_number is not None and item.issue_number == focus.issue_number:
        evidence += ISSUE_EVIDENCE
        why.append(f"issue #{focus.issue_number}")
    areas = [(AREA_FACTOR * focus.weight(a), a) for a in item.code_areas if a in focus.areas]
    if areas:
        value, area = max(areas)
        evidence += value
        if not why:
            why.append(f"area {area}")
    if evidence < MIN_EVIDENCE:
        return None
    score = evidence * TYPE_FACTOR.get(item.type, 1.0)
    score += tie_break(item.confidence, item.updated_at, now)
    return Ranked(item, score, "; ".join(why), via)


def tie_break(confidence: float | None, updated_at: Any, now: datetime) -> float:
    """What orders items of equal evidence and type: confidence, then recency (a little
    each, never enough to outweigh evidence)."""
    value = 0.05 * max(0.0, min(1.0, float(confidence or 0)))
    return value + 0.05 * max(0.0, 1 - _age_days(updated_at, now) / 90)


def standing(type_: str, confidence: float | None, updated_at: Any, now: datetime) -> float:
    """How an item ranks among items of one file, before its evidence is known: its type's
    weight, then :func:`tie_break`."""
    return TYPE_FACTOR.get(type_, 1.0) + tie_break(confidence, updated_at, now)


def rank(items: Iterable[Item], focus: Focus, now: datetime | None = None) -> list[Ranked]:
    """Relevant items, best first (ties: the newer, then id, for a stable order).
    Duplicates by id dropped."""
    now = now or datetime.now(UTC)
    seen: set[str] = set()
    ranked: list[Ranked] = []
    for item in items:
        if item.id in seen:
            continue
        seen.add(item.id)
        scored = score_item(item, focus, now)
        if scored is not None:
            ranked.append(scored)
    ranked.sort(key=lambda r: (-r.score, _age_days(r.item.updated_at, now), r.item.id))
    return ranked
