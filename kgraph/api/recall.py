"""Recall (what the project knows about a prompt) and the briefing for given files.

One read model: both run the hooks' own queries and ranking on the driver connection of a
SQLAlchemy read transaction (:func:`kgraph.db.raw_connection`), so the library, the MCP
server and the hooks give the same answers —

- ``recall`` is the prompt hook's ranking (code the prompt names, resolved through the code
  graph to the files defining and calling it, and telling words; :func:`kgraph.recall.
  prompt_ranked`) fused (reciprocal rank) with what a long-lived process adds: items close
  in **meaning**, from the warm embedder's vectors (cosine at least ``MIN_COSINE``);
- ``context_for`` is the session-start briefing (:func:`kgraph.recall.session_briefing`) for
  the given files and branch, followed by what recalls the prompt, if one is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgraph.db import raw_connection
from kgraph.knowledge import get_items
from kgraph.recall import (
    Block,
    CodeCheck,
    Ranked,
    SessionSignals,
    code_names,
    current_only,
    fit_briefing,
    fuse_ranked,
    load_evidence_settings,
    one_part_each,
    prompt_ranked,
    recent_only,
    session_briefing,
)
from kgraph.recall import held_back as _held_back
from kgraph.runtime import Recent, load_settings

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from kgraph.api.knowledge import SearchMode
    from kgraph.api.project import Project
    from kgraph.knowledge import KnowledgeItem
    from kgraph.runtime import Seen

MIN_COSINE = 0.35
MAX_PROMPT_CHARS = 2_000
HOOK_WEIGHT = 2.0  # code and telling words: the evidence replayed histories favour
MEANING_WEIGHT = 1.0
PROMPT_ITEMS = 6  # recalled items added below a briefing
RECALL_BLOCK = Block(
    title="kgraph items recalled for this prompt, recorded in earlier sessions "
    "(`kgraph knowledge show ID` prints one in full):",
    group_by_area=False,
)


@dataclass(frozen=True)
class Recalled:
    """One recalled item, its fused score and the evidence for it."""

    item: KnowledgeItem
    score: float
    why: str


@dataclass(frozen=True)
class RecallResult:
    items: tuple[Recalled, ...]
    mode: SearchMode  # "hybrid" when meaning took part
    note: str | None = None

    def block(self, max_chars: int = 2_000, max_items: int = 4) -> str | None:
        """The items as the prompt hook injects them: a ``<kgraph-context>`` block within
        ``max_chars`` (whole items dropped, lowest first); None when nothing is recalled."""
        return self.render(max_chars, max_items)[0]

    def render(self, max_chars: int, max_items: int) -> tuple[str | None, tuple[str, ...]]:
        """The block and the ids of the items it holds."""
        ranked = [Ranked(r.item, r.score, r.why) for r in self.items]
        text, kept = fit_briefing(ranked, RECALL_BLOCK, max_chars, max_items)
        return text, tuple(r.item.id for r in kept)


@dataclass(frozen=True)
class Briefing:
    """The rendered ``<kgraph-context>`` block(s) (None: nothing relevant) and the item ids."""

    text: str | None
    item_ids: tuple[str, ...] = ()


def _by_meaning(
    project: Project, text: str, limit: int, semantic: bool | None, exclude: set[str]
) -> tuple[list[Ranked], SearchMode, str | None]:
    """Items close in meaning to ``text`` (vectors only; words are the hooks' part)."""
    result = project.similar(text, limit=limit, min_cosine=MIN_COSINE, semantic=semantic)
    ranked = [
        Ranked(h.item, h.score, f"similar in meaning ({h.score:.2f})")
        for h in result.hits
        if h.item.id not in exclude
    ]
    return ranked, result.mode, result.note


def recall(
    project: Project,
    prompt: str,
    *,
    limit: int = 8,
    exclude: Sequence[str] = (),
    semantic: bool | None = None,
    recent: Recent | None = None,
) -> RecallResult:
    """See module docstring. ``exclude``: ids not to return (already shown this session);
    ``recent``: a session's latest changes, as its prompt hook holds back older history."""
    text = prompt.strip()[:MAX_PROMPT_CHARS]
    if not text:
        return RecallResult((), "lexical + graph", "nothing to look up in the prompt")
    skip = set(exclude)
    evidence = load_evidence_settings(project.root)
    by_hooks = project.db.read(
        lambda conn: prompt_ranked(raw_connection(conn), text, settings=evidence, exclude=skip)
    )
    by_meaning, mode, note = _by_meaning(project, text, limit * 3, semantic, skip)
    fused = fuse_ranked([(HOOK_WEIGHT, by_hooks), (MEANING_WEIGHT, by_meaning)])

    # As the prompt hook does: older history held back when the session's latest changes
    # are known, and one part of a long commit message at most.
    def kept(conn: Connection) -> list[Ranked]:
        raw = raw_connection(conn)
        return one_part_each(raw, recent_only(raw, fused, recent, code_names(text)[0])[0])

    fused = project.db.read(kept)
    # As the hooks do: an item whose files no longer hold the code it named is left out.
    fused = current_only(fused, CodeCheck(project.root), limit)
    items = get_items(project.db, [r.item.id for r in fused])
    recalled = tuple(
        Recalled(items[r.item.id], r.score, r.why) for r in fused if r.item.id in items
    )
    return RecallResult(recalled, mode, note)


def held_back(project: Project, session_id: str, state: Seen) -> set[str]:
    """What the prompt hook would hold back from the session ``session_id`` (its ``state``;
    :func:`kgraph.recall.held_back`)."""
    return project.db.read(
        lambda conn: _held_back(raw_connection(conn), project.root, session_id, state)
    )


def context_for(
    project: Project,
    *,
    files: Sequence[str] = (),
    prompt: str | None = None,
    branch: str | None = None,
    max_chars: int = 9_000,
) -> Briefing:
    """The session-start briefing for these files (as if changed) and this branch, then
    the items recalling ``prompt`` that the briefing does not already hold."""
    paths = tuple(dict.fromkeys(project.relative(f) for f in files if f.strip()))
    signals = SessionSignals(branch=branch, changed=paths)
    settings = load_settings(project.root)
    evidence = load_evidence_settings(project.root)
    briefing = project.db.read(
        lambda conn: session_briefing(
            raw_connection(conn),
            project.root,
            signals,
            settings=settings,
            evidence=evidence,
            area_rules=project.area_rules,
            max_chars=max_chars,
            check=CodeCheck(project.root),
        )
    )
    text, ids = briefing.text, briefing.ids
    if prompt and prompt.strip():
        budget = max_chars - (len(text) + 2 if text else 0)
        if budget > 200:
            block, more = recall(project, prompt, exclude=ids).render(budget, PROMPT_ITEMS)
            if block is not None:
                text, ids = (f"{text}\n\n{block}" if text else block), ids + more
    return Briefing(text, ids)
