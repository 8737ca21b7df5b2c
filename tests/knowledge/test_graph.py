"""N-hop traversal with paths."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge import add_item, link, set_hidden, supersede
from kgraph.knowledge.graph import related


@pytest.fixture
def graph(db: Database) -> dict[str, str]:
    ids = {
        "start": add_item(db, "Log with rd-logger", files=["src/api/handler.py"]).entity_id,
        "same_file": add_item(
            db, "Handler returns JSON errors", files=["src/api/handler.py"]
        ).entity_id,
        "pattern": add_item(
            db, "Validate input with pydantic", type="Pattern", code_area="API"
        ).entity_id,
        "far": add_item(db, "Docs use mkdocs", files=["docs/index.md"]).entity_id,
        "mistake": add_item(db, "print() output vanished in prod", type="Mistake").entity_id,
    }
    link(db, ids["mistake"], ids["start"], "LED_TO")
    return ids


def test_two_hops_reach_file_and_area_neighbours_with_paths(
    db: Database, graph: dict[str, str]
) -> None:
    start, results = related(db, graph["start"])
    assert start.id == graph["start"]
    by_id = {r.item.id: r for r in results}
    assert by_id[graph["mistake"]].distance == 1
    assert by_id["area-api"].distance == 1
    same_file = by_id[graph["same_file"]]
    assert same_file.distance == 2
    assert same_file.path[0] == graph["start"] and same_file.path[-1] == graph["same_file"]
    assert same_file.path[1].startswith("file-")
    assert [(s.type, s.forward) for s in same_file.steps] == [("IN_FILE", True), ("IN_FILE", False)]
    pattern = by_id[graph["pattern"]]
    assert pattern.distance == 2 and pattern.steps[-1].type == "APPLIES_TO"
    assert graph["far"] not in by_id
    # nearest first
    assert [r.distance for r in results] == sorted(r.distance for r in results)


def test_one_hop_and_type_filter(db: Database, graph: dict[str, str]) -> None:
    _, one = related(db, graph["start"], hops=1)
    assert {r.distance for r in one} == {1}
    _, patterns = related(db, graph["start"], types=["pattern"])
    assert [r.item.id for r in patterns] == [graph["pattern"]]


def test_hidden_and_superseded_items_are_not_walked(db: Database, graph: dict[str, str]) -> None:
    set_hidden(db, graph["same_file"], True)
    newer = add_item(db, "Validate input with pydantic v2", type="Pattern").entity_id
    supersede(db, graph["pattern"], newer)
    _, results = related(db, graph["start"])
    ids = {r.item.id for r in results}
    assert graph["same_file"] not in ids and graph["pattern"] not in ids
    _, everything = related(db, graph["start"], include_superseded=True)
    assert {graph["same_file"], graph["pattern"]} <= {r.item.id for r in everything}


def test_bad_arguments(db: Database, graph: dict[str, str]) -> None:
    with pytest.raises(InvalidValueError, match="hops"):
        related(db, graph["start"], hops=0)
    with pytest.raises(NotFoundError):
        related(db, "lrn-missing")


def test_busy_nodes_are_capped(db: Database) -> None:
    start = add_item(db, "start item", code_area="Busy").entity_id
    for n in range(30):
        add_item(db, f"busy item {n}", code_area="Busy")
    _, capped = related(db, start, max_degree=10)
    _, full = related(db, start)
    assert len([r for r in capped if r.distance == 2]) < len([r for r in full if r.distance == 2])
    assert len([r for r in full if r.distance == 2]) == 30
