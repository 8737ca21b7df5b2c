"""Pure transforms from what was read to nodes and edges: knowledge items with their files
and areas, code-graph files with their links, code symbols inside their files.

A :class:`Draft` collects nodes by key and merges repeated edges (their weights add up), so
the overview and every focus are the same few steps applied to different selections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from kgraph.codegraph.neighbours import FileGraph
from kgraph.codegraph.records import EntityRecord
from kgraph.knowledge.areas import AreaRules, infer_code_area
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.viz.model import (
    Edge,
    Node,
    Relation,
    View,
    area_key,
    file_key,
    item_key,
    symbol_key,
)
from kgraph.viz.read import KEntity, KnowledgeGraph

LABEL_CHARS = 60
MAX_LISTED = 12
AREA_EDGES = ("ABOUT", "APPLIES_TO")
FILE_EDGES = ("IN_FILE", "APPLIES_TO")


@dataclass
class Draft:
    """Nodes by key and edges by (source, type, target), in insertion order."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def add(self, node: Node) -> None:
        """Keep the first node of a key; a later one adds a role and details it lacked."""
        kept = self.nodes.get(node.key)
        if kept is None:
            self.nodes[node.key] = node
            return
        known = {k for k, _ in kept.details}
        extra = tuple(d for d in node.details if d[0] not in known)
        if extra or (node.role and not kept.role):
            self.nodes[node.key] = replace(
                kept, role=kept.role or node.role, details=kept.details + extra
            )

    def link(self, source: str, type_: str, target: str, weight: int = 1) -> None:
        if source != target:
            key = (source, type_, target)
            self.edges[key] = self.edges.get(key, 0) + weight

    def view(self, title: str, notes: Iterable[str] = (), focus: str | None = None) -> View:
        """The finished view: edges whose ends are both present (and not a node and its
        own container: the nesting shows that), area nodes with counts, file captions."""
        files_per_area: dict[str, int] = {}
        for node in self.nodes.values():
            if node.type == "File" and node.areas:
                files_per_area[node.areas[0]] = files_per_area.get(node.areas[0], 0) + 1
        captions = unique_suffixes(n.label for n in self.nodes.values() if n.type == "File")
        nodes = tuple(
            replace(n, details=(*n.details, ("files shown", str(files_per_area.get(n.label, 0)))))
            if n.type == "CodeArea"
            else replace(n, short=n.short or captions[n.label])
            if n.type == "File"
            else n
            for n in self.nodes.values()
        )
        edges = tuple(
            Edge(s, t, d, w)
            for (s, t, d), w in self.edges.items()
            if s in self.nodes and d in self.nodes and d != self.nodes[s].parent
        )
        return View(title, nodes, edges, tuple(notes), focus, before=len(nodes))


def unique_suffixes(paths: Iterable[str]) -> dict[str, str]:
    """Each path's shortest ending (whole segments) that no other path ends with; a path
    that is the end of another keeps itself whole."""
    parts = {p: tuple(p.split("/")) for p in set(paths)}
    ends = Counter(segs[-size:] for segs in parts.values() for size in range(1, len(segs) + 1))

    def caption(segs: tuple[str, ...]) -> str:
        sizes = range(1, len(segs) + 1)
        return "/".join(next((segs[-s:] for s in sizes if ends[segs[-s:]] == 1), segs))

    return {path: caption(segs) for path, segs in parts.items()}


def short(text: str, limit: int = LABEL_CHARS) -> str:
    """A one-line label: the first line, cut at a word near ``limit``."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else line[:limit]) + "…"


def file_areas(kg: KnowledgeGraph) -> dict[str, str]:
    """path -> area name, from the stored File -ABOUT-> CodeArea edges."""
    out: dict[str, str] = {}
    for source, type_, target in kg.edges:
        file, area = kg.entities.get(source), kg.entities.get(target)
        if type_ == "ABOUT" and file and area and file.type == "File" and area.type == "CodeArea":
            out.setdefault(file.content, area.content)
    return out


def area_of(path: str, stored: dict[str, str], rules: AreaRules) -> str:
    return stored.get(path) or infer_code_area(path, rules)


def add_area(draft: Draft, name: str, kg: KnowledgeGraph) -> str:
    """An area node; its ref is the CodeArea's knowledge id when the area has one."""
    key = area_key(name)
    if key not in draft.nodes:
        ids = [e.id for e in kg.entities.values() if e.type == "CodeArea" and e.content == name]
        ref = ids[0] if ids else name
        draft.add(Node(key, "CodeArea", name, f"Code area {name}", ref, areas=(name,)))
    return key


def add_file(
    draft: Draft,
    path: str,
    area: str,
    kg: KnowledgeGraph,
    *,
    language: str = "",
    relation: Relation | None = None,
    entity_id: str | None = None,
) -> str:
    """A file node inside its area (ABOUT edge), with its knowledge id when it has one."""
    key = file_key(path)
    details: list[tuple[str, str]] = [("area", area)]
    if language:
        details.append(("language", language))
    if entity_id:
        details.append(("knowledge id", entity_id))
    role = ""
    if relation is not None:
        role = relation.role
        details.extend(relation.details())
    new = key not in draft.nodes
    draft.add(Node(key, "File", path, path, path, (area,), role=role, details=tuple(details)))
    if new:
        draft.link(key, "ABOUT", add_area(draft, area, kg))
    return key


def item_node(
    entity: KEntity,
    areas: tuple[str, ...],
    superseded: bool,
    relation: Relation | None,
    files: list[str],
) -> Node:
    details = [
        ("confidence", f"{entity.confidence:.2f}"),
        ("seen", str(entity.seen_count)),
        ("source", entity.source + (f" {entity.source_ref}" if entity.source_ref else "")),
    ]
    if entity.issue_number is not None:
        details.append(("issue", f"#{entity.issue_number}"))
    details.append(("updated", entity.updated_at))
    if files:
        more = f" (+{len(files) - MAX_LISTED} more)" if len(files) > MAX_LISTED else ""
        details.append(("files", ", ".join(sorted(files)[:MAX_LISTED]) + more))
    if superseded:
        details.append(("state", "superseded (hidden from search and briefings)"))
    if relation is not None:
        details.extend(relation.details())
    return Node(
        item_key(entity.id),
        entity.type,
        short(entity.content),
        entity.content,
        entity.id,
        areas,
        kind=entity.type,
        role=relation.role if relation else "",
        state="superseded" if superseded else "",
        details=tuple(details),
    )


def item_links(kg: KnowledgeGraph, ids: Collection[str]) -> dict[str, list[tuple[str, KEntity]]]:
    """Each item's links to File and CodeArea entities, as (relationship type, entity)."""
    wanted = set(ids)
    targets: dict[str, list[tuple[str, KEntity]]] = {}
    for source, type_, target in kg.edges:
        other = kg.entities.get(target)
        if source in wanted and other is not None and other.type in ("File", "CodeArea"):
            targets.setdefault(source, []).append((type_, other))
    return targets


def visible_items(kg: KnowledgeGraph) -> list[str]:
    """Ids of knowledge items not forgotten (superseded ones stay: the page fades them)."""
    return [e.id for e in kg.entities.values() if e.type in KNOWLEDGE_TYPES and not e.hidden]


def add_items(
    draft: Draft,
    kg: KnowledgeGraph,
    ids: Iterable[str],
    rules: AreaRules,
    relations: Mapping[str, Relation] | None = None,
    within: Collection[str] | None = None,
) -> None:
    """Items with their files and areas, and the edges among everything present.

    ``within`` (a focus's files) keeps an item's other files, and areas not already shown,
    out of the picture: a commit that touched thirty files would otherwise pull all thirty
    in. They stay listed in the item's details.
    """
    wanted = {i for i in ids if i in kg.entities and not kg.entities[i].hidden}
    superseded = kg.superseded()
    stored_areas = file_areas(kg)
    targets = item_links(kg, wanted)
    for item_id in sorted(wanted, key=lambda i: (kg.entities[i].type, i)):
        entity = kg.entities[item_id]
        links = targets.get(item_id, [])
        areas = [o.content for t, o in links if o.type == "CodeArea" and t in AREA_EDGES]
        areas += [area_of(o.content, stored_areas, rules) for t, o in links if o.type == "File"]
        relation = (relations or {}).get(item_id)
        files = [o.content for _t, o in links if o.type == "File"]
        node = item_node(
            entity, tuple(dict.fromkeys(areas)), item_id in superseded, relation, files
        )
        draft.add(node)
        # In a focus, an item's other areas stay out too, unless it is the focus itself.
        own = within is None or (relation is not None and relation.role == "focus")
        for type_, other in links:
            if other.type == "CodeArea":
                if own or area_key(other.content) in draft.nodes:
                    draft.link(node.key, type_, add_area(draft, other.content, kg))
            elif within is None or other.content in within:
                path = other.content
                area = area_of(path, stored_areas, rules)
                draft.link(node.key, type_, add_file(draft, path, area, kg, entity_id=other.id))
    for source, type_, target in kg.edges:
        if source in wanted and target in wanted:
            draft.link(item_key(source), type_, item_key(target))


def add_files(
    draft: Draft,
    graph: FileGraph,
    kg: KnowledgeGraph,
    paths: Iterable[str],
    rules: AreaRules,
    relations: Mapping[str, Relation] | None = None,
    *,
    links: bool = True,
) -> None:
    """Code-graph files (with their language) and, with ``links``, DEPENDS_ON links among
    the files present (the overview picks its own: the strongest few)."""
    languages = dict(graph.files)
    stored_areas = file_areas(kg)
    file_ids = {e.content: e.id for e in kg.entities.values() if e.type == "File"}
    for path in paths:
        add_file(
            draft,
            path,
            area_of(path, stored_areas, rules),
            kg,
            language=languages.get(path, ""),
            relation=(relations or {}).get(path),
            entity_id=file_ids.get(path),
        )
    for link in graph.links if links else ():
        source, target = file_key(link.source), file_key(link.target)
        if source in draft.nodes and target in draft.nodes:
            draft.link(source, "DEPENDS_ON", target, link.count)


def add_symbol(draft: Draft, entity: EntityRecord, relation: Relation) -> str:
    """A code symbol inside its file's node (the file must be present already)."""
    parent = file_key(entity.file_path)
    file_node = draft.nodes.get(parent)
    details = (("location", entity.location), *relation.details())
    draft.add(
        Node(
            symbol_key(entity.id),
            "Symbol",
            entity.qualified_name,
            f"{entity.type} {entity.qualified_name}\n{entity.location}",
            entity.id,
            file_node.areas if file_node else (),
            kind=entity.type,
            parent=parent if file_node else None,
            role=relation.role,
            details=details,
        )
    )
    return symbol_key(entity.id)
