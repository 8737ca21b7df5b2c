"""Above the node threshold, symbols fold into files and files into areas; the page says so."""

from __future__ import annotations

from kgraph.knowledge.store import add_item
from kgraph.viz import build_view
from kgraph.viz.aggregate import aggregate, leave_out_items
from kgraph.viz.model import Edge, Node, View, area_key, file_key, item_key, symbol_key
from tests.viz.conftest import Project


def synthetic(files: int, symbols_per_file: int) -> View:
    """Files in two areas, each with symbols calling the next file's first symbol, and one
    item about every file."""
    nodes: list[Node] = [Node(area_key(a), "CodeArea", a, a, a, (a,)) for a in ("Core", "Web")]
    edges: list[Edge] = []
    for f in range(files):
        area = "Core" if f % 2 else "Web"
        path = f"src/m{f}.py"
        nodes.append(Node(file_key(path), "File", path, path, path, (area,)))
        edges.append(Edge(file_key(path), "ABOUT", area_key(area)))
        nodes.append(Node(item_key(f"lrn-{f}"), "Learning", "l", "l", f"lrn-{f}", (area,)))
        edges.append(Edge(item_key(f"lrn-{f}"), "IN_FILE", file_key(path)))
        for s in range(symbols_per_file):
            key = symbol_key(f"{path}::f{s}")
            nodes.append(Node(key, "Symbol", "f", "f", "f", (area,), parent=file_key(path)))
            target = symbol_key(f"src/m{(f + 1) % files}.py::f0")
            edges.append(Edge(key, "CALLS", target))
    return View("synthetic", tuple(nodes), tuple(edges), before=len(nodes))


def test_small_views_are_left_alone(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)
    assert aggregate(view, max_nodes=len(view.nodes)) == view


def test_symbols_fold_into_their_files_first() -> None:
    view = synthetic(files=10, symbols_per_file=10)  # 2 + 10 + 10 + 100 = 122 nodes
    folded = aggregate(view, max_nodes=50)
    assert {n.type for n in folded.nodes} == {"CodeArea", "File", "Learning"}
    assert len(folded.nodes) == 22
    assert folded.aggregated == ("functions and classes into their files",)
    assert folded.before == 122
    calls = {(e.source, e.target): e.weight for e in folded.edges if e.type == "CALLS"}
    assert calls[(file_key("src/m0.py"), file_key("src/m1.py"))] == 10  # ten calls merged
    m0 = next(n for n in folded.nodes if n.key == file_key("src/m0.py"))
    assert m0.weight == 11
    assert ("symbols folded in", "10") in m0.details
    assert "122 nodes are more than the 50" in folded.notes[-1]


def test_files_fold_into_areas_when_still_too_many() -> None:
    view = synthetic(files=40, symbols_per_file=2)  # 2 + 40 + 40 + 80 = 162 nodes
    folded = aggregate(view, max_nodes=30)
    assert {n.type for n in folded.nodes} == {"CodeArea", "Learning"}
    assert folded.aggregated == (
        "functions and classes into their files",
        "40 of 40 files (all) into their code areas",
        "left out the 12 oldest Learnings and Topics",
    )
    edges = {(e.source, e.type, e.target): e.weight for e in folded.edges}
    # An item's IN_FILE edge now points at its file's area; file calls became area calls.
    assert edges[(item_key("lrn-9"), "IN_FILE", area_key("Core"))] == 1
    assert edges[(area_key("Web"), "CALLS", area_key("Core"))] == 40
    assert all(e.source != e.target for e in folded.edges)
    web = next(n for n in folded.nodes if n.key == area_key("Web"))
    assert ("files folded in", "20") in web.details
    # Items are never folded; past folding every file, the oldest twelve are left out.
    assert len(folded.nodes) == 30
    assert item_key("lrn-0") not in {n.key for n in folded.nodes}  # no date: by id
    assert "162 nodes are more than the 30" in folded.notes[0]
    assert "Left out the 12 oldest Learnings and Topics" in folded.notes[-1]


def test_the_least_known_files_fold_first_and_only_as_many_as_needed(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)  # 14 nodes, 5 files
    folded = aggregate(view, max_nodes=12)
    assert len(folded.nodes) == 12
    assert folded.aggregated == ("2 of 5 files (the least known) into their code areas",)
    files = {n.key for n in folded.nodes if n.type == "File"}
    # app/__init__.py and the test file carry no knowledge: they go; the others stay.
    assert files == {file_key("app/api.py"), file_key("app/cli.py"), file_key("app/db.py")}
    testing = next(n for n in folded.nodes if n.key == area_key("Testing"))
    assert ("files folded in", "1") in testing.details
    links = {(e.source, e.target) for e in folded.edges if e.type == "DEPENDS_ON"}
    assert (area_key("Testing"), area_key("App")) in links  # the map links areas
    assert "14 nodes are more than the 12 this page lays out" in folded.notes[0]


def test_the_focus_files_never_fold(project: Project) -> None:
    view = build_view(project.db, focus="app/api.py", depth=1, project_root=project.root)
    folded = aggregate(view, max_nodes=3)
    files = {n.key for n in folded.nodes if n.type == "File"}
    assert files == {file_key("app/api.py")}
    assert folded.aggregated[0] == "3 of 4 files (the least known) into their code areas"


def test_past_folding_learnings_go_but_not_mistakes_or_the_focus_files_own(
    project: Project,
) -> None:
    add_item(
        project.db, "A newer note on app/db.py", files=["app/db.py"], project_root=project.root
    )
    view = build_view(project.db, focus="app/api.py", depth=1, project_root=project.root)
    folded = aggregate(view, max_nodes=3)
    items = {n.key for n in folded.nodes if n.type not in ("File", "CodeArea")}
    # The Learning on app/api.py (the focus) and the Mistake stay, over the limit or not.
    assert items == {item_key(project.learning), item_key(project.mistake)}
    assert folded.aggregated[-1] == "left out the 4 oldest Learnings and Topics"
    kept = {n.key for n in folded.nodes}
    assert all(e.source in kept and e.target in kept for e in folded.edges)


def test_the_oldest_go_first() -> None:
    nodes = tuple(
        Node(item_key(f"lrn-{d}"), "Learning", "l", "l", "l", details=(("updated", f"2026-0{d}"),))
        for d in (3, 1, 2)
    )
    view = View("v", nodes, ())
    kept, left = leave_out_items(view, 2)
    assert left == 2 and [n.key for n in kept.nodes] == [item_key("lrn-3")]
