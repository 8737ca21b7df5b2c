"""``--focus``: a knowledge id, a file or a code symbol, and its neighbourhood.

Read -> select -> build: the focus is resolved through the public queries (``get_item`` for
ids, the code graph's file list for paths, ``blast_radius`` for symbols, which raises the
usual not-found / ambiguous errors); the neighbourhood comes from the code graph's own
traversals (``what_depends_on`` and ``blast_radius`` backwards, the file links and
``callees`` forwards, each to ``depth``); then the knowledge on every file shown is added.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from kgraph.codegraph.neighbours import FileGraph, callees
from kgraph.codegraph.query import blast_radius, what_depends_on
from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge.areas import normalise_path
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.knowledge.records import get_item
from kgraph.viz.build import (
    AREA_EDGES,
    FILE_EDGES,
    Draft,
    add_area,
    add_files,
    add_items,
    add_symbol,
    area_of,
    file_areas,
)
from kgraph.viz.model import Relation, View, file_key, symbol_key
from kgraph.viz.read import KnowledgeGraph, Sources

MAX_DEPTH = 5
_ITEM_ID = re.compile(r"^(lrn|pat|mis|top|area|file)-", re.IGNORECASE)
_ITEM_LINKS = ("LED_TO", "SUPERSEDES", "PART_OF")


@dataclass(frozen=True)
class Selection:
    """Files and knowledge items of a neighbourhood, with how each relates to the focus."""

    files: dict[str, Relation]
    items: dict[str, Relation]


def dependencies(graph: FileGraph, seeds: Iterable[str], depth: int) -> dict[str, int]:
    """Files the seeds depend on (imports, calls, ...), transitively to ``depth``."""
    forward: dict[str, list[str]] = {}
    for link in graph.links:
        forward.setdefault(link.source, []).append(link.target)
    start = set(seeds)
    found: dict[str, int] = {}
    frontier = sorted(start)
    for level in range(1, depth + 1):
        reached = {t for f in frontier for t in forward.get(f, ()) if t not in start}
        frontier = sorted(reached - found.keys())
        found.update(dict.fromkeys(frontier, level))
        if not frontier:
            break
    return found


def items_on_files(kg: KnowledgeGraph, paths: Iterable[str]) -> dict[str, Relation]:
    """Items about these files, and the items one LED_TO/SUPERSEDES/PART_OF step away."""
    wanted = set(paths)
    files = {e.id for e in kg.entities.values() if e.type == "File" and e.content in wanted}
    direct = {s for s, t, to in kg.edges if t in FILE_EDGES and to in files}
    return {**neighbours(kg, direct, 1), **dict.fromkeys(direct, Relation("on file", 0))}


def neighbours(kg: KnowledgeGraph, start: set[str], depth: int) -> dict[str, Relation]:
    """Items within ``depth`` item-to-item links (either direction) of ``start``."""
    adjacent: dict[str, set[str]] = {}
    for source, type_, target in kg.edges:
        if type_ in _ITEM_LINKS:
            adjacent.setdefault(source, set()).add(target)
            adjacent.setdefault(target, set()).add(source)
    found: dict[str, Relation] = {}
    frontier = set(start)
    seen = set(start)
    for level in range(1, depth + 1):
        frontier = {n for f in frontier for n in adjacent.get(f, ())} - seen
        seen |= frontier
        found.update({n: Relation("neighbour", level) for n in frontier})
    return found


def file_neighbourhood(db: Database, sources: Sources, seeds: list[str], depth: int) -> Selection:
    """Seed files, what depends on them and what they depend on, and the knowledge on all."""
    in_graph = {p for p, _ in sources.files.files}
    files: dict[str, Relation] = {}
    for level_path, level in dependencies(sources.files, seeds, depth).items():
        files[level_path] = Relation("dependency", level)
    for seed in seeds:
        if seed in in_graph:
            for dep in what_depends_on(db, seed, depth=depth, record=False):
                files[dep.path] = Relation("dependent", dep.depth)
    files.update(dict.fromkeys(seeds, Relation("focus")))
    return Selection(files, items_on_files(sources.knowledge, files))


def _compose(
    sources: Sources, selection: Selection, title: str, notes: list[str], area: str | None = None
) -> View:
    draft = Draft()
    kg, rules = sources.knowledge, sources.rules
    if area is not None:
        key = add_area(draft, area, kg)
        draft.nodes[key] = replace(draft.nodes[key], role="focus")
    add_files(draft, sources.files, kg, selection.files, rules, selection.files)
    add_items(draft, kg, selection.items, rules, selection.items, within=selection.files)
    return draft.view(title, notes, focus=title)


def _area_view(db: Database, sources: Sources, area_id: str, name: str, depth: int) -> View:
    """A code area: its files and their neighbourhood, and the items about the area."""
    kg = sources.knowledge
    stored = file_areas(kg)
    paths = {p for p, _ in sources.files.files} | set(stored)
    seeds = sorted(p for p in paths if area_of(p, stored, sources.rules) == name)
    found = file_neighbourhood(db, sources, seeds, depth)
    direct = {s for s, t, to in kg.edges if to == area_id and t in AREA_EDGES}
    direct = {i for i in direct if kg.entities.get(i) and kg.entities[i].type in KNOWLEDGE_TYPES}
    items = {**found.items, **dict.fromkeys(direct, Relation("on area", 0))}
    label = f"code area {name}"
    notes = [
        f"Focus: {label}. Its files, files depending on them and files they depend on, to "
        f"depth {depth}, with the knowledge on the area and on those files."
    ]
    return _compose(sources, Selection(found.files, items), label, notes, area=name)


def _symbol_view(db: Database, sources: Sources, name: str, depth: int) -> View:
    radius = blast_radius(db, name, depth=depth, record=False)
    target = radius.target
    _, called = callees(db, target.id, depth=depth, record=False)
    files: dict[str, Relation] = {target.file_path: Relation("focus")}
    for impact in radius.impacts:
        if impact.entity.type == "file":
            files.setdefault(impact.entity.file_path, Relation("dependent", impact.depth))
        files.setdefault(impact.entity.file_path, Relation("", impact.depth))
    for callee in called:
        files.setdefault(callee.entity.file_path, Relation("", callee.depth))
    containers = {p: r for p, r in files.items() if r.role}
    draft = Draft()
    add_files(draft, sources.files, sources.knowledge, files, sources.rules, containers)
    focus_key = add_symbol(draft, target, Relation("focus"))

    def endpoint(entity_id: str) -> str | None:
        for key in (symbol_key(entity_id), file_key(entity_id)):
            if key in draft.nodes:
                return key
        return focus_key if entity_id.startswith(target.id + ".") else None

    for impact in radius.impacts:
        if impact.entity.type != "file":
            role = "caller" if impact.via_type == "calls" else "dependent"
            add_symbol(draft, impact.entity, Relation(role, impact.depth))
    for callee in called:
        add_symbol(draft, callee.entity, Relation("callee", callee.depth))
    for impact in radius.impacts:
        source, via = endpoint(impact.entity.id), endpoint(impact.via)
        if source and via:
            draft.link(source, impact.via_type.upper(), via)
    for callee in called:
        source, to = endpoint(callee.via), endpoint(callee.entity.id)
        if source and to:
            draft.link(source, "CALLS", to)
    title = f"{target.type} {target.qualified_name} ({target.location})"
    notes = [
        f"Focus: {title}. Callers and dependents (blast radius) and callees to depth {depth}, "
        f"in their files, with the knowledge on those files."
    ]
    items = items_on_files(sources.knowledge, files)
    add_items(draft, sources.knowledge, items, sources.rules, items, within=files)
    return draft.view(title, notes, focus=title)


def _item_view(db: Database, sources: Sources, text: str, depth: int) -> View | None:
    try:
        item = get_item(db, text)
    except NotFoundError:
        return None
    kg = sources.knowledge
    if item.type == "File":
        return _files_view(db, sources, [item.content], depth, item.content)
    if item.type == "CodeArea":
        return _area_view(db, sources, item.id, item.content, depth)
    found = file_neighbourhood(db, sources, list(item.files), depth) if item.files else None
    items = {**(found.items if found else {}), **neighbours(kg, {item.id}, depth)}
    items[item.id] = Relation("focus")
    selection = Selection(found.files if found else {}, items)
    title = f"{item.type} {item.id}"
    notes = [
        f"Focus: {title}. Items up to {depth} links away, its files, what depends on them and "
        f"what they depend on to depth {depth}, with the knowledge on those files."
    ]
    return _compose(sources, selection, title, notes)


def _files_view(db: Database, sources: Sources, seeds: list[str], depth: int, label: str) -> View:
    selection = file_neighbourhood(db, sources, seeds, depth)
    notes = [
        f"Focus: {label}. Files depending on it and files it depends on, to depth {depth}, "
        f"with the knowledge on those files."
    ]
    return _compose(sources, selection, label, notes)


def focus_view(db: Database, sources: Sources, focus: str, depth: int) -> View:
    """The neighbourhood of ``focus``: tried as a knowledge id, then a file, then a symbol."""
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidValueError(f"depth must be between 1 and {MAX_DEPTH}")
    text = focus.strip()
    if not text:
        raise InvalidValueError("--focus needs a file, a symbol or a knowledge id")
    if _ITEM_ID.match(text):
        view = _item_view(db, sources, text, depth)
        if view is not None:
            return view
    path = normalise_path(text)
    known = {p for p, _ in sources.files.files}
    known |= {e.content for e in sources.knowledge.entities.values() if e.type == "File"}
    if path in known:
        return _files_view(db, sources, [path], depth, path)
    if not sources.files.files:
        raise NotFoundError(
            f"no knowledge id or file {text!r} (symbols need a code graph: kgraph graph parse)"
        )
    try:
        return _symbol_view(db, sources, text, depth)
    except NotFoundError as exc:
        raise NotFoundError(f"no knowledge id, file or code symbol {text!r}") from exc
