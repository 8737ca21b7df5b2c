"""Rendering the injected ``<kgraph-context>`` blocks (ranking is
:mod:`kgraph.recall.relevance`, shared by every hook).

The blocks are factual (Claude Code's prompt-injection defences surface imperative "system"
text to the user), every item carries its id for ``kgraph knowledge show ID``, items are
grouped by code area, and a block fits its budget by dropping whole items, lowest ranked
first (the project-rules tail before any ranked item).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kgraph.recall.relevance import Ranked

__all__ = [
    "CONTEXT_TAG",
    "Block",
    "fit",
    "item_line",
    "one_line",
    "render",
    "render_checkpoint",
]

CONTEXT_TAG = "kgraph-context"  # == kgraph.transcript.markers.KGRAPH_CONTEXT_TAG
ITEM_MAX_CHARS = 600
GENERAL_AREA = "General"
RULES_TITLE = "Project rules (seen in several sessions)"


@dataclass(frozen=True)
class Block:
    """What a block says besides its items: the title lines, the session's code areas (an
    item is grouped under the first of its areas the session shares), the checkpoint
    paragraph and where it goes, and the title of a tail (project rules, or a file's
    dependencies) dropped first when the budget is short."""

    title: str
    areas: tuple[str, ...] = ()
    checkpoint: str | None = None
    lead_with_checkpoint: bool = False
    group_by_area: bool = True
    item_chars: int = ITEM_MAX_CHARS
    tail_title: str = f"## {RULES_TITLE}"
    tail_chars: int = ITEM_MAX_CHARS


def one_line(text: str, limit: int = ITEM_MAX_CHARS) -> str:
    """Whitespace collapsed, cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    # A stored item cannot close our block early.
    flat = flat.replace(f"</{CONTEXT_TAG}>", f"</ {CONTEXT_TAG}>")
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def item_line(ranked: Ranked, limit: int = ITEM_MAX_CHARS) -> str:
    item = ranked.item
    reason = f" ({ranked.why})" if ranked.why else ""
    return f"- {item.type} [{item.id}]{reason}: {one_line(item.content, limit)}"


def _area_of(ranked: Ranked, areas: Sequence[str]) -> str:
    item = ranked.item
    for area in item.code_areas:
        if area in areas:
            return area
    return item.code_areas[0] if item.code_areas else GENERAL_AREA


def render(ranked: Sequence[Ranked], block: Block, tail: Sequence[Ranked] = ()) -> str:
    """The ``<kgraph-context>`` block: title, (checkpoint), items (by area), (tail)."""
    sections: list[str] = []
    if block.group_by_area:
        groups: dict[str, list[Ranked]] = {}
        for entry in ranked:
            groups.setdefault(_area_of(entry, block.areas), []).append(entry)
        for area, entries in groups.items():  # insertion order = best item first
            lines = [f"## {area}"] + [item_line(e, block.item_chars) for e in entries]
            sections.append("\n".join(lines))
    elif ranked:
        sections.append("\n".join(item_line(e, block.item_chars) for e in ranked))
    if tail:
        sections.append(
            "\n".join([block.tail_title] + [item_line(e, block.tail_chars) for e in tail])
        )
    body: list[str] = [block.title]
    if block.checkpoint and block.lead_with_checkpoint:
        body.append(block.checkpoint)
    body.extend(sections)
    if block.checkpoint and not block.lead_with_checkpoint:
        body.append(block.checkpoint)
    return f"<{CONTEXT_TAG}>\n" + "\n\n".join(body) + f"\n</{CONTEXT_TAG}>"


def fit(
    ranked: Sequence[Ranked],
    block: Block,
    max_chars: int,
    max_items: int,
    tail: Sequence[Ranked] = (),
) -> tuple[str | None, list[Ranked]]:
    """The rendered block within ``max_chars`` and the items it holds (tail included).

    Whole items are dropped: the tail's first (last first), then ranked items lowest
    first. None when there is nothing to say, or not even the frame (and checkpoint) fits.
    """
    chosen = list(ranked[:max_items])
    tail = list(tail)
    if not chosen and not tail and not block.checkpoint:
        return None, []
    while True:
        text = render(chosen, block, tail)
        if len(text) <= max_chars:
            return text, chosen + tail
        if tail:
            tail.pop()
        elif chosen:
            chosen.pop()
        else:
            return None, []


def _age_hours(value: Any, now: datetime) -> float:
    if not isinstance(value, datetime):
        return 365 * 24.0
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return max(0.0, float((now - value).total_seconds()) / 3600)


def render_checkpoint(workflow: Any, now: datetime | None = None, max_chars: int = 1_500) -> str:
    """A factual paragraph about a workflow checkpoint (WorkflowBrief or WorkflowRecord)."""
    now = now or datetime.now(UTC)
    age = _age_hours(workflow.updated_at, now)
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
