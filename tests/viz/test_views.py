"""The overview of a small project: every visible item, file and area, nested as the map."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kgraph.db import Database
from kgraph.viz import build_view
from kgraph.viz.model import area_key, file_key, item_key
from tests.viz.conftest import Project


def test_overview_shows_items_by_type_files_areas_and_their_edges(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)
    types = Counter(n.type for n in view.nodes)
    assert types == {
        "Learning": 3,  # the forgotten one is left out
        "Mistake": 1,
        "Pattern": 1,
        "Topic": 1,
        "File": 5,  # a small project shows every parsed file, with or without knowledge
        "CodeArea": 3,  # App, Testing (inferred), CLI (the Pattern's)
    }
    edge_types = {e.type for e in view.edges}
    # A file's ABOUT its area and the Pattern's APPLIES_TO its area are the nesting itself.
    assert edge_types == {"IN_FILE", "LED_TO", "SUPERSEDES", "PART_OF", "DEPENDS_ON"}
    keys = {n.key for n in view.nodes}
    assert all(e.source in keys and e.target in keys for e in view.edges)
    parents = {n.key: n.parent for n in view.nodes}
    assert parents[file_key("app/db.py")] == area_key("App")
    assert parents[item_key(project.pattern)] == area_key("CLI")
    assert parents[item_key(project.topic)] is None  # about no area: below the map
    assert all(e.target != parents[e.source] for e in view.edges)
    assert item_key(project.forgotten) not in keys
    assert view.notes == ()


def test_superseded_items_stay_but_are_marked(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)
    nodes = {n.key: n for n in view.nodes}
    assert nodes[item_key(project.old)].state == "superseded"
    assert nodes[item_key(project.new)].state == ""
    assert any(
        e.type == "SUPERSEDES"
        and (e.source, e.target) == (item_key(project.new), item_key(project.old))
        for e in view.edges
    )


def test_nodes_carry_full_text_and_the_id_a_person_copies(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)
    nodes = {n.key: n for n in view.nodes}
    mistake = nodes[item_key(project.mistake)]
    assert mistake.ref == project.mistake
    assert mistake.text == "Store.save wrote before validating: bad rows reached disk"
    assert mistake.areas == ("App",)
    assert dict(mistake.details)["confidence"] == "0.70"
    db_file = nodes[file_key("app/db.py")]
    assert db_file.ref == "app/db.py"
    assert dict(db_file.details)["language"] == "python"
    assert dict(db_file.details)["knowledge id"].startswith("file-")


def test_file_links_inside_an_area_and_area_links_across(project: Project) -> None:
    view = build_view(project.db, project_root=project.root)
    links = {(e.source, e.target): e.weight for e in view.edges if e.type == "DEPENDS_ON"}
    assert set(links) == {
        (file_key("app/api.py"), file_key("app/db.py")),
        (file_key("app/cli.py"), file_key("app/api.py")),
        (area_key("Testing"), area_key("App")),  # tests/test_api.py -> app/api.py
    }
    assert all(weight >= 2 for weight in links.values())  # an import and a call at least


def test_knowledge_without_a_code_graph(db: Database, tmp_path: Path) -> None:
    from kgraph.knowledge.store import add_item

    add_item(db, "Retries need a deadline", files=["src/net.py"], project_root=tmp_path)
    view = build_view(db, project_root=tmp_path)
    assert Counter(n.type for n in view.nodes) == {"Learning": 1, "File": 1, "CodeArea": 1}
