"""Where the overview's nodes go: a map of code areas, each a box sized by its files.

A force layout (cytoscape's ``cose``) of clusters inside clusters overlapped them and
strung their files in a line, and it never came out the same twice. The map is laid out
here instead, the same every time: each area is a box whose size grows with the logarithm
of its files (drawn or not: square roots let one folder of 860 changelog files dwarf the
rest and shrink every caption to nothing), its drawn members (files, then Mistakes, Patterns and
the other items) on a grid inside it; boxes go on shelves, tallest first, in rows about as
wide as the whole is tall, with a gap between rows for the boxes' captions; items that
belong to several areas or none go in a band under the map. The page uses these positions
as they are (cytoscape's ``preset`` layout).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from kgraph.viz.model import Node, View

CELL_W = 210.0
CELL_H = 80.0
GAP = 90.0
SIDE_PER_DOUBLING = 55.0  # a box's side grows by this each time its files double
MIN_W, MIN_H = 150.0, 80.0
_MEMBER_ORDER = {"File": 0, "Mistake": 1, "Pattern": 2, "Learning": 3, "Topic": 4}


@dataclass(frozen=True)
class Box:
    """One area's box: its size and its members in the order they are placed."""

    key: str
    width: float
    height: float
    members: tuple[Node, ...]
    columns: int


def _box(area: Node, members: list[Node]) -> Box:
    members = sorted(members, key=lambda n: (_MEMBER_ORDER.get(n.type, 9), n.short or n.label))
    columns = max(1, math.ceil(math.sqrt(len(members) * 2))) if members else 1
    rows = math.ceil(len(members) / columns)
    side = SIDE_PER_DOUBLING * math.log2(1 + max(1, area.weight))
    width = max(columns * CELL_W, side * 1.4, MIN_W)
    height = max(rows * CELL_H, side, MIN_H)
    return Box(area.key, width, height, tuple(members), columns)


def _grid(
    members: tuple[Node, ...], columns: int, left: float, top: float, width: float
) -> dict[str, tuple[float, float]]:
    """Members on a grid of ``columns``, centred across ``width`` from (left, top)."""
    used = min(columns, len(members)) * CELL_W
    start = left + (width - used) / 2 + CELL_W / 2
    return {
        node.key: (start + (i % columns) * CELL_W, top + (i // columns) * CELL_H + CELL_H / 2)
        for i, node in enumerate(members)
    }


def map_layout(view: View) -> View:
    """``view`` with a position for every node and an extent for every area."""
    members: dict[str, list[Node]] = {}
    for node in view.nodes:
        if node.parent:
            members.setdefault(node.parent, []).append(node)
    areas = [n for n in view.nodes if n.type == "CodeArea"]
    boxes = sorted(
        (_box(a, members.get(a.key, [])) for a in areas), key=lambda b: (-b.height, b.key)
    )
    total = sum(b.width * b.height for b in boxes)
    row_limit = max([math.sqrt(total) * 1.6, *(b.width for b in boxes)]) if boxes else CELL_W
    positions: dict[str, tuple[float, float]] = {}
    extents: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for box in boxes:
        if x > 0 and x + box.width > row_limit:
            x, y, row_height = 0.0, y + row_height + GAP, 0.0
        positions[box.key] = (x + box.width / 2, y + box.height / 2)
        extents[box.key] = (box.width, box.height)
        rows = math.ceil(len(box.members) / box.columns)
        top = y + (box.height - rows * CELL_H) / 2  # the page centres a box on its members
        positions.update(_grid(box.members, box.columns, x, top, box.width))
        x += box.width + GAP
        row_height = max(row_height, box.height)
    loose = tuple(n for n in view.nodes if n.key not in positions)
    if loose:
        columns = max(1, int(max(row_limit, CELL_W) // CELL_W))
        positions.update(_grid(loose, columns, 0.0, y + row_height + GAP, columns * CELL_W))
    nodes = tuple(
        replace(n, position=positions.get(n.key), extent=extents.get(n.key)) for n in view.nodes
    )
    return replace(view, nodes=nodes)
