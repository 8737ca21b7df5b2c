"""Ranking knowledge for a session and rendering the injected ``<kgraph-context>`` block.

Relevance comes from the session's real signals (DESIGN: "injection was essentially random"
in the previous tool): the changed files, the issue of the branch, the code areas of the
changed files, and the files that depend on them (blast radius). Mistakes in touched files
rank first; confidence and recency only break ties. An item that matches no signal is not
injected at all.

The block is factual (Claude Code's prompt-injection defences surface imperative "system"
text to the user), grouped by code area, every item carries its id, and it fits the budget
by dropping whole items, lowest ranked first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

CONTEXT_TAG = "kgraph-context"  # == kgraph.transcript.markers.KGRAPH_CONTEXT_TAG
ITEM_MAX_CHARS = 600
GENERAL_AREA = "General"
_TYPE_WEIGHT = {"Mistake": 8.0, "Pattern": 5.0, "Learning": 3.0, "Topic": 1.0}


class Item(Protocol):
    """What ranking needs of a knowledge item (kgraph.knowledge.query.KnowledgeItem)."""

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


@dataclass(frozen=True)
class Signals:
    """What the session is about."""

    branch: str | None = None
    issue_number: int | None = None
    files: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()
    blast: Mapping[str, int] = field(default_factory=dict)  # dependent file -> depth

    @property
    def empty(self) -> bool:
        return not (self.issue_number or self.files or self.areas)


@dataclass(frozen=True)
class Ranked:
    item: Item
    score: float
    why: str  # short reason shown beside the item


def _age_days(value: Any, now: datetime) -> float:
    if not isinstance(value, datetime):
        return 365.0
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return max(0.0, float((now - value).total_seconds()) / 86_400)


def score_item(item: Item, signals: Signals, now: datetime | None = None) -> Ranked | None:
    """The item's relevance to ``signals``; None when it matches none of them."""
    now = now or datetime.now(UTC)
    files = set(signals.files)
    touched = [f for f in item.files if f in files]
    depths = [signals.blast[f] for f in item.files if f in signals.blast]
    issue = signals.issue_number is not None and item.issue_number == signals.issue_number
    areas = [a for a in item.code_areas if a in signals.areas]
    mistake = item.type == "Mistake"
    score = 0.0
    why: list[str] = []
    if touched:
        score += 100 + (60 if mistake else 0)
        why.append(
            f"in changed file {touched[0]}"
            + (f" (+{len(touched) - 1})" if len(touched) > 1 else "")
        )
    if issue:
        score += 50 + (20 if mistake else 0)
        why.append(f"issue #{signals.issue_number}")
    if depths:
        score += 30 / max(1, min(depths))
        if not touched:
            dependent = next(f for f in item.files if f in signals.blast)
            why.append(f"{dependent} depends on a changed file")
    if areas:
        score += 15 + (5 if mistake else 0)
        if not why:
            why.append(f"area {areas[0]}")
    if score == 0:
        return None
    score += _TYPE_WEIGHT.get(item.type, 0.0)
    score += 4 * max(0.0, min(1.0, float(item.confidence or 0)))
    score += 3 * max(0.0, 1 - _age_days(item.updated_at, now) / 90)
    return Ranked(item, score, "; ".join(why))


def rank(items: Iterable[Item], signals: Signals, now: datetime | None = None) -> list[Ranked]:
    """Relevant items, best first (ties: id, for a stable order). Duplicates by id dropped."""
    now = now or datetime.now(UTC)
    seen: set[str] = set()
    ranked: list[Ranked] = []
    for item in items:
        if item.id in seen:
            continue
        seen.add(item.id)
        scored = score_item(item, signals, now)
        if scored is not None:
            ranked.append(scored)
    ranked.sort(key=lambda r: (-r.score, r.item.id))
    return ranked


def one_line(text: str, limit: int = ITEM_MAX_CHARS) -> str:
    """Whitespace collapsed, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    # A stored item cannot close our block early.
    flat = flat.replace(f"</{CONTEXT_TAG}>", f"</ {CONTEXT_TAG}>")
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def item_line(ranked: Ranked) -> str:
    item = ranked.item
    reason = f" ({ranked.why})" if ranked.why else ""
    return f"- {item.type} [{item.id}]{reason}: {one_line(item.content)}"


def _area_of(item: Item, signals: Signals) -> str:
    for area in item.code_areas:
        if area in signals.areas:
            return area
    return item.code_areas[0] if item.code_areas else GENERAL_AREA


def _header(signals: Signals) -> str:
    parts = []
    if signals.branch:
        parts.append(f"branch {signals.branch}")
    if signals.issue_number:
        parts.append(f"issue #{signals.issue_number}")
    if signals.files:
        parts.append(f"{len(signals.files)} changed file{'s' if len(signals.files) != 1 else ''}")
    about = f" for {', '.join(parts)}" if parts else ""
    return (
        f"kgraph project memory{about}. These are facts recorded in earlier sessions of this "
        "project; `kgraph knowledge show ID` prints an item in full."
    )


def render(
    ranked: Sequence[Ranked],
    signals: Signals,
    *,
    checkpoint: str | None = None,
    lead_with_checkpoint: bool = False,
    title: str | None = None,
) -> str:
    """The ``<kgraph-context>`` block for these items, grouped by code area."""
    groups: dict[str, list[Ranked]] = {}
    for entry in ranked:
        groups.setdefault(_area_of(entry.item, signals), []).append(entry)
    sections: list[str] = []
    for area, entries in groups.items():  # insertion order = best item first
        lines = [f"## {area}"] + [item_line(e) for e in entries]
        sections.append("\n".join(lines))
    body: list[str] = [title or _header(signals)]
    if checkpoint and lead_with_checkpoint:
        body.append(checkpoint)
    body.extend(sections)
    if checkpoint and not lead_with_checkpoint:
        body.append(checkpoint)
    return f"<{CONTEXT_TAG}>\n" + "\n\n".join(body) + f"\n</{CONTEXT_TAG}>"


def fit(
    ranked: Sequence[Ranked],
    signals: Signals,
    max_chars: int,
    max_items: int,
    **render_args: Any,
) -> tuple[str | None, list[Ranked]]:
    """The rendered block within ``max_chars`` and the items it holds.

    Whole items are dropped, lowest ranked first; None when not even the frame (and the
    checkpoint, if any) fits, or there is nothing to say.
    """
    chosen = list(ranked[:max_items])
    if not chosen and not render_args.get("checkpoint"):
        return None, []
    while True:
        text = render(chosen, signals, **render_args)
        if len(text) <= max_chars:
            return text, chosen
        if not chosen:
            return None, []
        chosen.pop()


def render_checkpoint(workflow: Any, now: datetime | None = None, max_chars: int = 1_500) -> str:
    """A factual paragraph about a workflow checkpoint (kgraph.checkpoint.WorkflowRecord)."""
    now = now or datetime.now(UTC)
    age = _age_days(workflow.updated_at, now) * 24
    when = f"{age:.0f} h ago" if age >= 1 else f"{age * 60:.0f} min ago"
    lines = [
        f"## Workflow checkpoint for issue #{workflow.issue_number}",
        f"Workflow {workflow.id} on branch {workflow.branch} is in phase {workflow.phase}, "
        f"status {workflow.status}, retries {workflow.retry_count}, last updated {when}"
        + (f", worktree {workflow.worktree}" if workflow.worktree else "")
        + ".",
    ]
    actions = list(workflow.actions)[-5:]
    if actions:
        lines.append(
            "Last actions: "
            + "; ".join(one_line(f"{a.action} ({a.result})", 160) for a in actions)
            + "."
        )
    commits = list(workflow.commits)[-5:]
    if commits:
        lines.append(
            "Last commits: "
            + "; ".join(one_line(f"{c.sha[:10]} {c.message}", 160) for c in commits)
            + "."
        )
    lines.append(f"`kgraph workflow get {workflow.id}` shows the whole checkpoint.")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"
