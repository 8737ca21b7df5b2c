"""Recall (what the project knows about a prompt) and the briefing for given files.

Both follow the hooks' lesson that relevance is file-shaped: a prompt that names code —
a path, or a symbol the code graph resolves to a file — pulls in the items about those
files, fused (reciprocal rank) with a hybrid search of the prompt's words and meaning. A
search hit must carry real evidence: a cosine of at least ``MIN_COSINE`` or enough of the
prompt's significant words (the user-prompt hook's threshold); one common word never
recalls anything. ``context_for`` ranks exactly as the session-start hook does
(kgraph.hooks.briefing) and adds the recalled items below the file-matched ones.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kgraph.capture import issue_from_branch
from kgraph.hooks import (
    Ranked,
    Signals,
    fit_briefing,
    rank_items,
    render_checkpoint,
    required_overlap,
    significant_terms,
    stem,
)

if TYPE_CHECKING:
    from kgraph.api.project import Project, SearchMode
    from kgraph.knowledge import KnowledgeItem, SearchHit

RRF_K = 60
MIN_COSINE = 0.35
MAX_PROMPT_CHARS = 2_000
MAX_NAMES = 12
BLAST_DEPTH = 2
BLAST_FILES = 40
QUERY_LIMIT = 200
RECALL_TITLE = (
    "kgraph items recalled for this prompt, recorded in earlier sessions "
    "(`kgraph knowledge show ID` prints one in full):"
)

# Suffixes that make a bare "name.ext" a file name rather than "Class.attr".
_SUFFIX_WORDS = (
    "py pyi ts tsx js jsx mjs cjs md rst txt toml json yaml yml cfg ini sql sh html css "
    "rs go java kt rb php c h cc cpp hpp cs swift lock"
)
FILE_SUFFIXES = frozenset(_SUFFIX_WORDS.split())
# A path with an extension, or an identifier that looks like code: snake_case, dotted,
# CamelCase with an inner capital, or followed by "(".
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z]{1,5})(?![\w/])")
_SYMBOL = re.compile(
    r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"  # dotted
    r"|[a-z0-9]+_[A-Za-z0-9_]+"  # snake_case
    r"|_[A-Za-z0-9_]+"  # _private
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"  # CamelCase
    r"|[A-Za-z_][A-Za-z0-9_]*(?=\())"  # call()
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
    mode: SearchMode
    files: tuple[str, ...] = ()  # files the prompt names, directly or through symbols
    note: str | None = None

    def block(self, max_chars: int = 2_000, max_items: int = 4) -> str | None:
        """The items as the prompt hook injects them: a ``<kgraph-context>`` block within
        ``max_chars`` (whole items dropped, lowest first); None when nothing is recalled."""
        ranked = [Ranked(r.item, r.score, r.why) for r in self.items]
        text, _kept = fit_briefing(ranked, Signals(), max_chars, max_items, title=RECALL_TITLE)
        return text


@dataclass(frozen=True)
class Briefing:
    """The rendered ``<kgraph-context>`` block (None: nothing relevant) and its item ids."""

    text: str | None
    item_ids: tuple[str, ...] = ()
    files: tuple[str, ...] = field(default=())


def code_mentions(prompt: str) -> tuple[list[str], list[str]]:
    """(paths, symbols) the prompt names, in order, without repeats."""
    paths = list(
        dict.fromkeys(
            m.group(1)
            for m in _PATH.finditer(prompt)
            if "/" in m.group(1) or m.group(1).rsplit(".", 1)[1].lower() in FILE_SUFFIXES
        )
    )
    path_set = set(paths)
    symbols = [
        s
        for s in dict.fromkeys(m.group(1) for m in _SYMBOL.finditer(prompt))
        if s not in path_set and not any(s in p for p in paths)
    ]
    return paths, symbols


def named_files(project: Project, prompt: str) -> dict[str, str]:
    """Repo-relative files the prompt names -> why: its paths, and the files defining its
    symbols (exact names in the code graph, when one is parsed)."""
    paths, symbols = code_mentions(prompt)
    files = {project.relative(p): "named in the prompt" for p in paths[:MAX_NAMES]}
    if symbols and project.graph.available:
        for symbol in symbols[:MAX_NAMES]:
            for entity in project.graph.find(symbol, exact=True, limit=5):
                files.setdefault(entity.file_path, f"defines {symbol}")
    return files


def _evidence(hit: SearchHit, stems: set[str], need: int) -> str | None:
    """Why a search hit counts as recalled, or None when its evidence is too weak."""
    if hit.cosine is not None and hit.cosine >= MIN_COSINE:
        return f"similar in meaning ({hit.cosine:.2f})"
    shared = len(stems & {stem(w) for w in significant_terms(hit.item.content)})
    if hit.lexical_rank is not None and shared >= need:
        return f"{shared} words in common"
    return None


def fuse(
    hits: Sequence[SearchHit],
    file_items: Sequence[KnowledgeItem],
    files: dict[str, str],
    terms: Sequence[str],
    exclude: set[str],
    limit: int,
) -> list[Recalled]:
    """Reciprocal-rank fusion of the search hits and the named files' items. A search hit
    needs evidence of its own (``_evidence``) unless it is about a named file."""
    stems = {stem(t) for t in terms}
    need = required_overlap(len(stems))
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    items: dict[str, KnowledgeItem] = {}
    about_files = {i.id for i in file_items}
    rank = 0
    for hit in hits:
        if hit.item.id in exclude:
            continue
        reason = _evidence(hit, stems, need)
        if reason is None and hit.item.id in about_files:
            reason = "matches the prompt's words"  # the named file is the evidence
        if reason is None:
            continue
        rank += 1
        scores[hit.item.id] += 1 / (RRF_K + rank)
        why[hit.item.id].append(reason)
        items[hit.item.id] = hit.item
    for n, item in enumerate((i for i in file_items if i.id not in exclude), 1):
        scores[item.id] += 1 / (RRF_K + n)
        named = next((f for f in item.files if f in files), "")
        why[item.id].append(f"about {named}, {files[named]}" if named else "about a named file")
        items[item.id] = item
    ranked = sorted(scores, key=lambda i: (-scores[i] * (0.8 + 0.2 * items[i].confidence), i))
    return [
        Recalled(items[i], scores[i] * (0.8 + 0.2 * items[i].confidence), "; ".join(why[i]))
        for i in ranked[:limit]
    ]


def recall(
    project: Project,
    prompt: str,
    *,
    limit: int = 8,
    exclude: Sequence[str] = (),
    semantic: bool | None = None,
) -> RecallResult:
    """See module docstring. ``exclude``: ids not to return (already shown this session)."""
    text = prompt.strip()[:MAX_PROMPT_CHARS]
    terms = significant_terms(text)
    files = named_files(project, text) if text else {}
    if not terms and not files:
        return RecallResult((), "lexical + graph", (), "nothing to look up in the prompt")
    # The whole prompt: its meaning for the vectors; FTS5 drops its stopwords itself.
    result = project.search(text, limit=limit * 3, semantic=semantic)
    file_items = (
        project.query(files=list(files), limit=limit * 3, file_areas=False) if files else []
    )
    fused = fuse(result.hits, file_items, files, terms, set(exclude), limit)
    return RecallResult(tuple(fused), result.mode, tuple(files), result.note)


def context_for(
    project: Project,
    *,
    files: Sequence[str] = (),
    prompt: str | None = None,
    branch: str | None = None,
    max_chars: int = 9_000,
    max_items: int = 20,
) -> Briefing:
    """The briefing the session-start hook would give for these files and this branch,
    with the items recalling ``prompt`` ranked after the file-matched ones."""
    from kgraph.knowledge import infer_code_area

    rules = project.area_rules
    paths = tuple(dict.fromkeys(project.relative(f) for f in files if f.strip()))
    issue = issue_from_branch(branch)
    signals = Signals(
        branch=branch,
        issue_number=issue,
        files=paths,
        areas=tuple(sorted({infer_code_area(f, rules) for f in paths})),
    )
    workflow = None
    if issue is not None:
        workflow = project.workflows.find(issue)
    if workflow is None and branch:
        workflow = project.workflows.for_branch(branch)
    if workflow is not None and workflow.status not in ("running", "paused"):
        workflow = None
    items: list[KnowledgeItem] = []
    if not signals.empty:
        items = project.query(files=paths, code_areas=signals.areas, issue=issue, limit=QUERY_LIMIT)
    if paths and project.graph.available:
        blast = project.graph.dependent_files(paths, depth=BLAST_DEPTH)
        nearest = sorted(blast, key=lambda f: (blast[f], f))[:BLAST_FILES]
        if nearest:
            signals = replace(signals, blast={f: blast[f] for f in nearest})
            items += project.query(files=nearest, limit=QUERY_LIMIT)
    ranked = rank_items(items, signals)
    if prompt and prompt.strip():
        known = {r.item.id for r in ranked}
        recalled = recall(project, prompt, limit=max_items, exclude=sorted(known)).items
        ranked += [Ranked(r.item, 1.0 / n, r.why) for n, r in enumerate(recalled, 1)]
    text, kept = fit_briefing(
        ranked,
        signals,
        max_chars,
        max_items,
        checkpoint=render_checkpoint(workflow) if workflow is not None else None,
    )
    return Briefing(text, tuple(r.item.id for r in kept), paths)
