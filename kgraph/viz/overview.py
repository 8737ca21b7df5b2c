"""The overview: the project as a map a person reads at a glance.

Every file and every item on one page was a hairball: flask's 545 history items round 315
files, labels over labels, ten bare ``__init__.py``. The map draws instead:

- **code areas as clusters**, sized by their files and labelled with how many files and
  items they hold;
- inside each, its **most-known files** (most items about them, then most links), up to
  :data:`FILE_BUDGET` in all, each labelled by the shortest end of its path no other shown
  file shares (``flask/__init__.py``, ``json/__init__.py``);
- **Mistakes and Patterns always**: inside the cluster of their one area, between the
  clusters of several. Learnings and Topics too while every item fits
  :data:`ITEM_BUDGET`; past it they are counted on their files and areas (a file's newest
  are listed when it is clicked) and the page says so;
- each shown file's strongest links to shown files of its area, and each area's strongest
  links to other areas (the file links between them added up), so the page shows which
  parts lean on which without a mesh of every import.

``--focus`` pages show the rest: every item and link around one file, symbol or item.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from kgraph.viz.build import (
    AREA_EDGES,
    Draft,
    add_area,
    add_files,
    area_of,
    file_areas,
    item_links,
    item_node,
    short,
    visible_items,
)
from kgraph.viz.layout import map_layout
from kgraph.viz.model import NODE_TYPES, Node, View, area_key, file_key, item_key
from kgraph.viz.read import KnowledgeGraph, Sources

FILE_BUDGET = 40
ITEM_BUDGET = 120
PROMINENT = ("Mistake", "Pattern")
NEWEST_LISTED = 3
STRONGEST_LINKS = 3
_PLURAL = {"Mistake": "Mistakes", "Learning": "Learnings", "Pattern": "Patterns", "Topic": "Topics"}


def _counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


@dataclass
class Tally:
    """What one file or area holds: files (areas only) and items by type, newest first."""

    files: int = 0
    types: Counter[str] = field(default_factory=Counter)
    items: list[str] = field(default_factory=list)

    def count(self) -> int:
        return sum(self.types.values())

    def summary(self) -> str:
        order = sorted(self.types.items(), key=lambda tn: (-tn[1], NODE_TYPES.index(tn[0])))
        kinds = ", ".join(f"{n} {_PLURAL[t] if n > 1 else t}" for t, n in order)
        return f"{_counted(self.count(), 'item')}: {kinds}" if kinds else "no items"


@dataclass(frozen=True)
class ItemPlace:
    """Where one item sits: its files (``type``, path) and the areas it is in."""

    files: tuple[tuple[str, str], ...]
    areas: tuple[str, ...]
    direct: tuple[tuple[str, str], ...]  # (type, area) links to CodeArea entities


NOWHERE = ItemPlace((), (), ())


def _places(sources: Sources, ids: list[str]) -> dict[str, ItemPlace]:
    kg, stored = sources.knowledge, file_areas(sources.knowledge)
    places: dict[str, ItemPlace] = {}
    for item_id, links in item_links(kg, ids).items():
        files = tuple((t, o.content) for t, o in links if o.type == "File")
        direct = tuple((t, o.content) for t, o in links if o.type == "CodeArea" and t in AREA_EDGES)
        areas = [a for _t, a in direct] + [area_of(p, stored, sources.rules) for _t, p in files]
        places[item_id] = ItemPlace(files, tuple(dict.fromkeys(areas)), direct)
    return places


def _tallies(
    sources: Sources, ids: list[str], places: dict[str, ItemPlace], area: dict[str, str]
) -> tuple[dict[str, Tally], dict[str, Tally]]:
    """What each file and each area holds; ``ids`` newest first, so each tally lists its
    newest items first."""
    per_file: dict[str, Tally] = {}
    per_area: dict[str, Tally] = {}
    for path in area:
        per_area.setdefault(area[path], Tally()).files += 1
    for item_id in ids:
        kind = sources.knowledge.entities[item_id].type
        place = places.get(item_id, NOWHERE)
        holders = [
            *(per_file.setdefault(p, Tally()) for p in dict.fromkeys(p for _t, p in place.files)),
            *(per_area.setdefault(name, Tally()) for name in place.areas),
        ]
        for tally in holders:
            tally.types[kind] += 1
            tally.items.append(item_id)
    return per_file, per_area


def overview(sources: Sources) -> View:
    """The map of the project (see the module docstring)."""
    kg, rules = sources.knowledge, sources.rules
    stored = file_areas(kg)
    ids = sorted(visible_items(kg), key=lambda i: kg.entities[i].updated_at, reverse=True)
    places = _places(sources, ids)
    every_file = dict.fromkeys(p for p, _ in sources.files.files)
    every_file.update(dict.fromkeys(p for pl in places.values() for _t, p in pl.files))
    area = {p: area_of(p, stored, rules) for p in every_file}

    per_file, per_area = _tallies(sources, ids, places, area)
    links: Counter[str] = Counter()
    for link in sources.files.links:
        links[link.source] += 1
        links[link.target] += 1
    ranked = sorted(
        every_file,
        key=lambda p: (-(per_file[p].count() if p in per_file else 0), -links[p], p),
    )
    shown_files = ranked[:FILE_BUDGET]
    drawn = [i for i in ids if len(ids) <= ITEM_BUDGET or kg.entities[i].type in PROMINENT]

    draft = Draft()
    _add_areas(draft, sources, per_area)
    _add_files(draft, sources, shown_files, area, per_file)
    _add_items(draft, sources, drawn, places, area)
    _add_links(draft, sources, area)
    notes = _notes(ids, drawn, len(shown_files), len(every_file))
    view = draft.view(f"{len(ids):,} knowledge items, {len(every_file):,} files", notes)
    return map_layout(_count_captions(view, per_file))


def _count_captions(view: View, per_file: dict[str, Tally]) -> View:
    """A shown file's caption ends with how many items are about it: ``app.py (12)``."""

    def caption(node: Node) -> Node:
        count = per_file[node.label].count() if node.label in per_file else 0
        return replace(node, short=f"{node.short} ({count})") if count else node

    nodes = tuple(caption(n) if n.type == "File" else n for n in view.nodes)
    return replace(view, nodes=nodes)


def _listing(kg: KnowledgeGraph, tally: Tally) -> tuple[tuple[str, str], ...]:
    return tuple(("newest", short(kg.entities[i].content)) for i in tally.items[:NEWEST_LISTED])


def _add_areas(draft: Draft, sources: Sources, per_area: dict[str, Tally]) -> None:
    for name in sorted(per_area):
        tally = per_area[name]
        key = add_area(draft, name, sources.knowledge)
        counts = [_counted(tally.files, "file")] if tally.files else []
        caption = "\n".join([name, " · ".join([*counts, _counted(tally.count(), "item")])])
        details = (("files", str(tally.files)), ("knowledge", tally.summary()))
        node = draft.nodes[key]
        draft.nodes[key] = replace(
            node,
            short=caption,
            weight=max(1, tally.files),
            details=node.details + details + _listing(sources.knowledge, tally),
        )


def _add_files(
    draft: Draft,
    sources: Sources,
    paths: list[str],
    area: dict[str, str],
    per_file: dict[str, Tally],
) -> None:
    """The shown files inside their area's box, with what they hold."""
    add_files(draft, sources.files, sources.knowledge, paths, sources.rules, links=False)
    for path in paths:
        key = file_key(path)
        tally = per_file.get(path, Tally())
        node = draft.nodes[key]
        extra = (("knowledge", tally.summary()), *_listing(sources.knowledge, tally))
        draft.nodes[key] = replace(node, parent=area_key(area[path]), details=node.details + extra)


def _add_items(
    draft: Draft,
    sources: Sources,
    drawn: list[str],
    places: dict[str, ItemPlace],
    area: dict[str, str],
) -> None:
    kg = sources.knowledge
    superseded = kg.superseded()
    for item_id in sorted(drawn, key=lambda i: (kg.entities[i].type, i)):
        place = places.get(item_id, NOWHERE)
        parent = area_key(place.areas[0]) if len(place.areas) == 1 else None
        node = item_node(
            kg.entities[item_id],
            place.areas,
            item_id in superseded,
            None,
            [p for _t, p in place.files],
        )
        draft.add(replace(node, parent=parent))
        for type_, name in place.direct:
            draft.link(node.key, type_, area_key(name))
        for type_, path in place.files:
            target = file_key(path) if file_key(path) in draft.nodes else area_key(area[path])
            draft.link(node.key, type_, target)
    wanted = set(drawn)
    for source, type_, target in kg.edges:
        if source in wanted and target in wanted:
            draft.link(item_key(source), type_, item_key(target))


def _add_links(draft: Draft, sources: Sources, area: dict[str, str]) -> None:
    """Each shown file's strongest links to shown files of its area, and each area's
    strongest links to other areas (all file links between them added up): every link of
    a dense package drew a solid mesh over its own file names."""
    files: dict[str, Counter[str]] = {}
    areas: dict[str, Counter[str]] = {}
    for link in sources.files.links:
        source, target = area.get(link.source), area.get(link.target)
        if source is None or target is None:
            continue
        if source != target:
            areas.setdefault(area_key(source), Counter())[area_key(target)] += link.count
        elif file_key(link.source) in draft.nodes and file_key(link.target) in draft.nodes:
            files.setdefault(file_key(link.source), Counter())[file_key(link.target)] += link.count
    for strongest in (files, areas):
        for source, targets in strongest.items():
            for target, count in targets.most_common(STRONGEST_LINKS):
                draft.link(source, "DEPENDS_ON", target, count)


def _notes(ids: list[str], drawn: list[str], files_shown: int, files: int) -> list[str]:
    notes: list[str] = []
    if files_shown < files:
        notes.append(
            f"{files_shown:,} of {files:,} files shown: those most items are about; the "
            "rest are counted on their code areas."
        )
    if len(drawn) < len(ids):
        notes.append(
            f"{len(ids) - len(drawn):,} Learnings and Topics are counted on their files and "
            "areas, not drawn (click one for its newest); Mistakes and Patterns are all "
            "shown. Use --focus FILE|SYMBOL|ID for every item around one place."
        )
    return notes
