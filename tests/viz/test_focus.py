"""``--focus``: a file, a symbol or a knowledge id, and its neighbourhood to ``depth``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.codegraph.records import AmbiguousNameError
from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge.store import add_item
from kgraph.viz import build_view
from kgraph.viz.model import View, area_key, file_key, item_key, symbol_key
from tests.viz.conftest import Project


def roles(view: View) -> dict[str, str]:
    return {n.key: n.role for n in view.nodes}


def test_file_focus_shows_dependents_dependencies_and_their_knowledge(project: Project) -> None:
    view = build_view(project.db, focus="app/api.py", depth=1, project_root=project.root)
    files = {k: r for k, r in roles(view).items() if k.startswith("f:")}
    assert files == {
        file_key("app/api.py"): "focus",
        file_key("app/db.py"): "dependency",
        file_key("app/cli.py"): "dependent",
        file_key("tests/test_api.py"): "dependent",
    }
    keys = set(roles(view))
    # Knowledge on every file shown (the db.py Mistake, the cli.py Learnings) and the
    # Topic one PART_OF step away; the forgotten item never.
    for item in (project.mistake, project.learning, project.old, project.new, project.topic):
        assert item_key(item) in keys
    assert item_key(project.forgotten) not in keys
    assert item_key(project.pattern) not in keys  # about the CLI area, not these files
    assert view.notes[0].startswith("Focus: app/api.py.")


def test_file_focus_depth_limits_the_reach(project: Project) -> None:
    near = build_view(project.db, focus="app/db.py", depth=1, project_root=project.root)
    far = build_view(project.db, focus="app/db.py", depth=2, project_root=project.root)
    assert file_key("app/cli.py") not in roles(near)
    assert roles(far)[file_key("app/cli.py")] == "dependent"
    depth = dict(next(n for n in far.nodes if n.key == file_key("app/cli.py")).details)
    assert depth["relation"] == "dependent at depth 2"


def test_symbol_focus_shows_callers_and_callees_inside_their_files(project: Project) -> None:
    view = build_view(project.db, focus="handler", depth=1, project_root=project.root)
    nodes = {n.key: n for n in view.nodes}
    assert nodes[symbol_key("app/api.py::handler")].role == "focus"
    assert nodes[symbol_key("app/cli.py::main")].role == "caller"
    assert nodes[symbol_key("tests/test_api.py::test_handler")].role == "caller"
    assert nodes[symbol_key("app/db.py::Store.save")].role == "callee"
    assert nodes[symbol_key("app/cli.py::main")].parent == file_key("app/cli.py")
    calls = {(e.source, e.target) for e in view.edges if e.type == "CALLS"}
    assert (symbol_key("app/cli.py::main"), symbol_key("app/api.py::handler")) in calls
    assert (symbol_key("app/api.py::handler"), symbol_key("app/db.py::Store.save")) in calls
    assert item_key(project.mistake) in nodes  # knowledge on a callee's file
    assert view.title == "function handler (app/api.py:4)"


def test_symbol_focus_callees_reach_further_with_depth(project: Project) -> None:
    near = roles(build_view(project.db, focus="main", depth=1, project_root=project.root))
    far = roles(build_view(project.db, focus="main", depth=3, project_root=project.root))
    assert symbol_key("app/db.py::write") not in near
    assert far[symbol_key("app/db.py::write")] == "callee"


def test_item_focus_shows_its_links_files_and_their_neighbourhood(project: Project) -> None:
    view = build_view(project.db, focus=project.mistake[:7], depth=1, project_root=project.root)
    found = roles(view)
    assert found[item_key(project.mistake)] == "focus"
    assert found[item_key(project.learning)] == "neighbour"  # LED_TO
    assert found[item_key(project.topic)] == "neighbour"  # PART_OF
    assert found[file_key("app/db.py")] == "focus"
    assert found[file_key("app/api.py")] == "dependent"


def test_area_focus_shows_the_items_about_the_area(project: Project) -> None:
    view = build_view(project.db, focus="area-cli", project_root=project.root)
    assert roles(view) == {area_key("CLI"): "focus", item_key(project.pattern): "on area"}


def test_focus_errors_name_what_was_tried(project: Project) -> None:
    with pytest.raises(NotFoundError, match="no knowledge id, file or code symbol 'nope'"):
        build_view(project.db, focus="nope", project_root=project.root)
    add_item(project.db, "x", files=["other/handler.py"], project_root=project.root)
    (project.root / "app" / "more.py").write_text("def handler():\n    pass\n")
    from kgraph.codegraph.indexer import parse_repository

    parse_repository(project.db, project.root, root=project.root, jobs=1)
    with pytest.raises(AmbiguousNameError):
        build_view(project.db, focus="handler", project_root=project.root)
    with pytest.raises(InvalidValueError, match="depth"):
        build_view(project.db, focus="app/api.py", depth=9, project_root=project.root)


def test_symbols_need_a_code_graph(db: Database, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="kgraph graph parse"):
        build_view(db, focus="handler", project_root=tmp_path)


def test_an_items_other_files_stay_out_of_a_focus(project: Project) -> None:
    wide = add_item(
        project.db,
        "Renamed save everywhere",
        files=["app/db.py", "app/cli.py"],
        project_root=project.root,
    )
    view = build_view(project.db, focus="app/db.py", depth=1, project_root=project.root)
    found = roles(view)
    assert item_key(wide.entity_id) in found
    assert file_key("app/cli.py") not in found
    node = next(n for n in view.nodes if n.key == item_key(wide.entity_id))
    assert dict(node.details)["files"] == "app/cli.py, app/db.py"
