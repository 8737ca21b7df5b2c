"""The map's layout: area boxes that never overlap, members inside their box, the same
positions every time."""

from __future__ import annotations

from kgraph.viz.layout import CELL_H, CELL_W, map_layout
from kgraph.viz.model import Node, View, area_key, file_key, item_key


def square(node: Node) -> tuple[float, float, float, float]:
    assert node.position is not None and node.extent is not None
    (x, y), (w, h) = node.position, node.extent
    return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def view() -> View:
    """Twelve areas of 1 to 600 files, each with some files and an item; two loose items."""
    nodes: list[Node] = []
    for a in range(12):
        name = f"Area{a}"
        nodes.append(Node(area_key(name), "CodeArea", name, name, name, weight=1 + a * a * 5))
        for f in range(a % 5):
            path = f"{name}/f{f}.py"
            nodes.append(Node(file_key(path), "File", path, path, path, parent=area_key(name)))
        key = item_key(f"mis-{a}")
        nodes.append(Node(key, "Mistake", "m", "m", "m", parent=area_key(name)))
    nodes += [Node(item_key(f"top-{i}"), "Topic", "t", "t", "t") for i in range(2)]
    return View("map", tuple(nodes), ())


def test_boxes_do_not_overlap_and_grow_with_their_files() -> None:
    laid = map_layout(view())
    boxes = {n.key: square(n) for n in laid.nodes if n.type == "CodeArea"}
    keys = sorted(boxes)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[a], boxes[b]
            assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, (a, b)
    sizes = {n.weight: n.extent for n in laid.nodes if n.type == "CodeArea"}
    assert sizes[1 + 11 * 11 * 5][0] > sizes[1][0]  # type: ignore[index]


def test_members_sit_inside_their_box_and_loose_items_below() -> None:
    laid = map_layout(view())
    nodes = {n.key: n for n in laid.nodes}
    for node in laid.nodes:
        assert node.position is not None
        if node.parent:
            x0, y0, x1, y1 = square(nodes[node.parent])
            x, y = node.position
            assert x0 + CELL_W / 2 - 1 <= x <= x1 - CELL_W / 2 + 1
            assert y0 + CELL_H / 2 - 1 <= y <= y1 - CELL_H / 2 + 1
    bottom = max(square(n)[3] for n in laid.nodes if n.type == "CodeArea")
    loose = [n for n in laid.nodes if n.type == "Topic"]
    assert all(n.position is not None and n.position[1] > bottom for n in loose)
    placed = [n.position for n in laid.nodes if n.type != "CodeArea"]
    assert len(set(placed)) == len(placed)  # no two members on one spot


def test_the_same_view_is_laid_out_the_same_every_time() -> None:
    assert map_layout(view()) == map_layout(view())
