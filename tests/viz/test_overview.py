"""The overview of a large project: a map of areas, the most-known files, every Mistake and
Pattern, the other items counted."""

from __future__ import annotations

from collections import Counter

from kgraph.codegraph.neighbours import FileGraph, FileLink
from kgraph.knowledge.areas import DEFAULT_AREA_RULES
from kgraph.viz.build import unique_suffixes
from kgraph.viz.model import area_key, item_key
from kgraph.viz.overview import FILE_BUDGET, ITEM_BUDGET, STRONGEST_LINKS, overview
from kgraph.viz.read import KEntity, KnowledgeGraph, Sources


def entity(id_: str, type_: str, content: str, updated: str = "2026-01-01") -> KEntity:
    return KEntity(id_, type_, content, 0.8, "commit", None, None, 1, False, updated)


def large() -> Sources:
    """120 files in ``core/`` and 60 in ``web/``; ``core/m<i>.py`` has i % 7 learnings about
    it; two Mistakes and a Pattern; every core file imports the next three."""
    files = [f"core/m{i}.py" for i in range(120)] + [f"web/v{i}.py" for i in range(60)]
    entities = {f"file-{p}": entity(f"file-{p}", "File", p) for p in files}
    edges: list[tuple[str, str, str]] = []
    n = 0
    for i in range(120):
        for _ in range(i % 7):
            n += 1
            entities[f"lrn-{n}"] = entity(
                f"lrn-{n}", "Learning", f"note {n}", f"2026-01-{n % 28 + 1:02}"
            )
            edges.append((f"lrn-{n}", "IN_FILE", f"file-core/m{i}.py"))
    for key, type_, path in (
        ("mis-1", "Mistake", "web/v3.py"),
        ("mis-2", "Mistake", "core/m0.py"),
        ("pat-1", "Pattern", "core/m1.py"),
    ):
        entities[key] = entity(key, type_, f"{type_} about {path}")
        edges.append((key, "IN_FILE", f"file-{path}"))
    edges.append(("mis-2", "IN_FILE", "file-web/v0.py"))  # one Mistake in two areas
    links = [
        FileLink(f"core/m{i}.py", f"core/m{(i + d) % 120}.py", ("IMPORTS",), d)
        for i in range(120)
        for d in (1, 2, 3, 4)
    ] + [FileLink(f"web/v{i}.py", f"core/m{i}.py", ("CALLS",), 2) for i in range(60)]
    graph = FileGraph(tuple((p, "python") for p in files), tuple(links))
    return Sources(KnowledgeGraph(entities, tuple(edges)), graph, DEFAULT_AREA_RULES)


def test_the_map_counts_learnings_and_shows_every_mistake_and_pattern() -> None:
    sources = large()
    learnings = sum(1 for e in sources.knowledge.entities.values() if e.type == "Learning")
    assert learnings > ITEM_BUDGET
    view = overview(sources)
    types = Counter(n.type for n in view.nodes)
    assert types == {"CodeArea": 2, "File": FILE_BUDGET, "Mistake": 2, "Pattern": 1}
    nodes = {n.key: n for n in view.nodes}
    # A Mistake in one area sits in its box; one in two areas sits between them.
    assert nodes[item_key("mis-1")].parent == area_key("Web")
    assert nodes[item_key("mis-2")].parent is None
    assert f"{learnings:,} Learnings and Topics are counted" in view.notes[1]
    assert view.notes[0].startswith(f"{FILE_BUDGET} of 180 files shown")
    core = nodes[area_key("Core")]
    assert core.short == f"Core\n120 files · {learnings + 2:,} items"
    assert core.weight == 120
    summary = f"{learnings + 2} items: {learnings} Learnings, 1 Mistake, 1 Pattern"
    assert dict(core.details)["knowledge"] == summary


def test_the_most_known_files_are_shown_with_their_counts_and_newest() -> None:
    view = overview(large())
    files = {n.label: n for n in view.nodes if n.type == "File"}
    # Files with six items (i % 7 == 6) first, then five, ...: never a file with none.
    counts = sorted((int(n.short.rsplit("(", 1)[1][:-1]) for n in files.values()), reverse=True)
    assert counts[0] == 6 and counts[-1] >= 4
    m6 = files["core/m6.py"]
    assert m6.short == "m6.py (6)"
    assert m6.parent == area_key("Core")
    details = dict(m6.details)
    assert details["knowledge"] == "6 items: 6 Learnings"
    newest = [v for k, v in m6.details if k == "newest"]
    assert len(newest) == 3 and all(v.startswith("note ") for v in newest)
    # A Mistake about a file not shown links to that file's area instead.
    mistake_links = {e.target for e in view.edges if e.source == item_key("mis-2")}
    assert area_key("Web") in mistake_links


def test_links_are_each_files_and_areas_strongest_few() -> None:
    view = overview(large())
    out: Counter[str] = Counter(e.source for e in view.edges if e.type == "DEPENDS_ON")
    assert max(out.values()) <= STRONGEST_LINKS
    across = [e for e in view.edges if e.source == area_key("Web")]
    assert [(e.target, e.weight) for e in across] == [(area_key("Core"), 120)]  # 60 x 2
    keys = {n.key for n in view.nodes}
    inside = [e for e in view.edges if e.source.startswith("f:")]
    assert inside and all(e.source in keys and e.target in keys for e in inside)


def test_file_captions_are_the_shortest_end_no_other_file_shares() -> None:
    captions = unique_suffixes(
        ["src/flask/__init__.py", "src/flask/json/__init__.py", "tests/__init__.py", "app.py"]
    )
    assert captions == {
        "src/flask/__init__.py": "flask/__init__.py",
        "src/flask/json/__init__.py": "json/__init__.py",
        "tests/__init__.py": "tests/__init__.py",
        "app.py": "app.py",
    }
    # A path that is the end of another keeps itself whole; the other adds its folder.
    assert unique_suffixes(["a.py", "x/a.py"]) == {"a.py": "a.py", "x/a.py": "x/a.py"}
