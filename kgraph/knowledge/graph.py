"""N-hop traversal: the neighbourhood of an item, with the path to each neighbour.

The subgraph within ``hops`` of the start is collected hop by hop in SQL (one query per
hop), then a networkx graph is built from those rows for the query and shortest paths are
taken from it (networkx is imported here, lazily: ~0.26 s). Edges are walked in both
directions, so "learning -> file -> other learnings in that file" and "learning -> area ->
patterns that apply to it" are two hops. Forgotten and superseded items are neither
returned nor walked through unless ``include_superseded``. A node with more than
``max_degree`` edges (a busy code area) contributes only its ``max_degree`` most recent.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.errors import InvalidValueError
from kgraph.knowledge.model import ENTITY_TYPES, parse_type
from kgraph.knowledge.records import (
    ENTITIES,
    RELATIONSHIPS,
    KnowledgeItem,
    chunks,
    load_items,
    resolve_id,
    superseded_clause,
)

MAX_HOPS = 4
AREA_DETOUR = 1.001
_TYPE_ORDER = {t: n for n, t in enumerate(ENTITY_TYPES)}


@dataclass(frozen=True)
class PathStep:
    """One edge walked: ``from_id -type-> to_id`` in stored direction; ``forward`` says
    whether the walk went along (True) or against it."""

    from_id: str
    type: str
    to_id: str
    forward: bool

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.from_id, "type": self.type, "to": self.to_id, "forward": self.forward}


@dataclass(frozen=True)
class RelatedItem:
    item: KnowledgeItem
    distance: int
    path: tuple[str, ...]  # entity ids from the start to the item
    steps: tuple[PathStep, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.item.to_dict(),
            "distance": self.distance,
            "path": list(self.path),
            "steps": [s.to_dict() for s in self.steps],
        }


def _hidden(conn: Connection, ids: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for part in chunks(list(ids)):
        out.update(
            conn.scalars(
                select(ENTITIES.c.id).where(
                    ENTITIES.c.id.in_(part),
                    or_(ENTITIES.c.hidden_at.is_not(None), superseded_clause()),
                )
            )
        )
    return out


def _collect(
    conn: Connection, start: str, hops: int, include_superseded: bool, max_degree: int
) -> list[tuple[str, str, str]]:
    """Edges (from, type, to) of the subgraph within ``hops`` of ``start``."""
    edges: set[tuple[str, str, str]] = set()
    seen = {start}
    frontier = [start]
    for _ in range(hops):
        found: dict[str, list[tuple[str, str, str]]] = {}
        for part in chunks(frontier):
            for node_col in (RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id):
                rows = conn.execute(
                    select(
                        RELATIONSHIPS.c.from_id,
                        RELATIONSHIPS.c.type,
                        RELATIONSHIPS.c.to_id,
                        node_col,
                    )
                    .where(node_col.in_(part))
                    .order_by(RELATIONSHIPS.c.created_at.desc(), RELATIONSHIPS.c.id.desc())
                ).all()
                for from_id, type_, to_id, node in rows:
                    found.setdefault(node, []).append((from_id, type_, to_id))
        new_nodes: set[str] = set()
        for _node, node_edges in found.items():
            for from_id, type_, to_id in node_edges[:max_degree]:
                edges.add((from_id, type_, to_id))
                new_nodes.update((from_id, to_id))
        new_nodes -= seen
        if not include_superseded:
            hidden = _hidden(conn, list(new_nodes))
            new_nodes -= hidden
            edges = {e for e in edges if e[0] not in hidden and e[2] not in hidden}
        seen |= new_nodes
        frontier = sorted(new_nodes)
        if not frontier:
            break
    return sorted(e for e in edges if e[0] in seen and e[2] in seen)


def related(
    db: Database,
    entity_id: str,
    *,
    hops: int = 2,
    limit: int = 50,
    types: Sequence[str] | None = None,
    include_superseded: bool = False,
    max_degree: int = 200,
) -> tuple[KnowledgeItem, list[RelatedItem]]:
    """The start item and the entities within ``hops`` edges of it, nearest first.

    ``types`` limits which entities are returned (every type is still walked through).
    Ties are ordered knowledge before structure, then by confidence.
    """
    if not 1 <= hops <= MAX_HOPS:
        raise InvalidValueError(f"hops must be between 1 and {MAX_HOPS}")
    if limit <= 0:
        raise InvalidValueError("limit must be positive")
    wanted = {parse_type(t) for t in types} if types else None

    Read = tuple[KnowledgeItem, list[tuple[str, str, str]], dict[str, KnowledgeItem]]

    def read(conn: Connection) -> Read:
        start = resolve_id(conn, entity_id)
        edges = _collect(conn, start, hops, include_superseded, max_degree)
        nodes = {start} | {e[0] for e in edges} | {e[2] for e in edges}
        items = load_items(conn, sorted(nodes))
        return items[start], edges, items

    start_item, edges, items = db.read(read)
    import networkx as nx

    graph = nx.Graph()
    graph.add_node(start_item.id)
    areas = {i for i, item in items.items() if item.type == "CodeArea"}
    for from_id, type_, to_id in edges:
        # Among equally short paths prefer the specific one (through a file, a direct link)
        # over one through a code area.
        weight = AREA_DETOUR if from_id in areas or to_id in areas else 1.0
        graph.add_edge(from_id, to_id, type=type_, source=from_id, target=to_id, weight=weight)
    paths: dict[str, list[str]] = nx.single_source_dijkstra_path(
        graph, start_item.id, cutoff=hops * AREA_DETOUR + 1e-9, weight="weight"
    )
    results: list[RelatedItem] = []
    for node, path in paths.items():
        item = items.get(node)
        if node == start_item.id or item is None:
            continue
        if wanted is not None and item.type not in wanted:
            continue
        steps = []
        for a, b in itertools.pairwise(path):
            data = graph.edges[a, b]
            steps.append(
                PathStep(data["source"], data["type"], data["target"], data["source"] == a)
            )
        results.append(RelatedItem(item, len(path) - 1, tuple(path), tuple(steps)))
    results.sort(
        key=lambda r: (
            r.distance,
            _TYPE_ORDER.get(r.item.type, 99) >= _TYPE_ORDER["CodeArea"],
            -r.item.confidence,
            r.item.id,
        )
    )
    return start_item, results[:limit]
