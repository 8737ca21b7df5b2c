"""The picture as data: nodes, edges and the notes the page shows, before any HTML.

Node keys are prefixed by what they stand for (``k:`` knowledge item, ``a:`` code area,
``f:`` file path, ``s:`` code symbol), so a file known both to the knowledge graph (as a
File entity) and to the code graph (as a parsed path) is one node, and no path can clash
with an id. What a person copies (a knowledge id, a path, a symbol id) is ``ref``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, TypedDict

# What the page can show, in legend order: knowledge types, then structure, then code.
NODE_TYPES: tuple[str, ...] = (
    "Mistake",
    "Learning",
    "Pattern",
    "Topic",
    "CodeArea",
    "File",
    "Symbol",
)
# Knowledge edges (kgraph.knowledge.model.RELATIONSHIP_TYPES) and the code graph's.
CODE_EDGE_TYPES: tuple[str, ...] = ("DEPENDS_ON", "CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS")


def item_key(entity_id: str) -> str:
    return f"k:{entity_id}"


def area_key(name: str) -> str:
    return f"a:{name}"


def file_key(path: str) -> str:
    return f"f:{path}"


def symbol_key(entity_id: str) -> str:
    return f"s:{entity_id}"


class Relation(NamedTuple):
    """How a node relates to the focus: ``role`` (focus, caller, callee, dependent,
    dependency, neighbour) at ``depth`` steps from it."""

    role: str
    depth: int = 0

    def details(self) -> tuple[tuple[str, str], ...]:
        if self.role == "focus":
            return (("relation", "focus"),)
        return (("relation", f"{self.role} at depth {self.depth}"),)


@dataclass(frozen=True)
class Node:
    """One node. ``areas`` drive the page's area filter (an item may be about several);
    ``role`` marks the focus and how a node relates to it (caller, callee, dependent, ...);
    ``weight`` counts what a node stands for (an area's files, what aggregation folded
    in) and sizes it; ``short`` is the caption drawn (``label`` when empty). A laid-out view
    (the overview's map) gives every node a ``position`` and every area its ``extent``
    (width, height); without them the page lays the graph out itself."""

    key: str
    type: str
    label: str
    text: str
    ref: str
    areas: tuple[str, ...] = ()
    kind: str = ""
    parent: str | None = None
    role: str = ""
    state: str = ""
    weight: int = 1
    details: tuple[tuple[str, str], ...] = ()
    short: str = ""
    position: tuple[float, float] | None = None
    extent: tuple[float, float] | None = None


@dataclass(frozen=True)
class Edge:
    """``source -type-> target``; ``weight`` counts merged edges (aggregation, file links)."""

    source: str
    type: str
    target: str
    weight: int = 1


@dataclass(frozen=True)
class View:
    """What one page shows. ``notes`` are told on the page (aggregation, truncation);
    ``before`` is the node count before aggregation."""

    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    notes: tuple[str, ...] = ()
    focus: str | None = None
    before: int = 0
    aggregated: tuple[str, ...] = field(default=())


class NodeJson(TypedDict):
    id: str
    type: str
    label: str
    short: str
    text: str
    ref: str
    areas: list[str]
    kind: str
    parent: str | None
    role: str
    state: str
    weight: int
    details: list[list[str]]
    position: list[float] | None
    extent: list[float] | None


class EdgeJson(TypedDict):
    source: str
    target: str
    type: str
    weight: int


class PageJson(TypedDict):
    title: str
    focus: str | None
    notes: list[str]
    types: list[str]
    nodes: list[NodeJson]
    edges: list[EdgeJson]


def to_json(view: View) -> PageJson:
    """The page's data block (keys the page script reads)."""
    present = {n.type for n in view.nodes}
    return {
        "title": view.title,
        "focus": view.focus,
        "notes": list(view.notes),
        "types": [t for t in NODE_TYPES if t in present],
        "nodes": [
            {
                "id": n.key,
                "type": n.type,
                "label": n.label,
                "short": n.short or n.label,
                "text": n.text,
                "ref": n.ref,
                "areas": list(n.areas),
                "kind": n.kind,
                "parent": n.parent,
                "role": n.role,
                "state": n.state,
                "weight": n.weight,
                "details": [[k, v] for k, v in n.details],
                "position": [round(c, 1) for c in n.position] if n.position else None,
                "extent": [round(c, 1) for c in n.extent] if n.extent else None,
            }
            for n in view.nodes
        ],
        "edges": [
            {"source": e.source, "target": e.target, "type": e.type, "weight": e.weight}
            for e in view.edges
        ],
    }
