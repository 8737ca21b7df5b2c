from __future__ import annotations

from pathlib import Path

from kgraph import checkpoint
from kgraph.capture.snapshot import build_snapshot, load_snapshot, refresh_snapshot, snapshot_path
from kgraph.db import Database, open_database
from kgraph.knowledge.store import add_item
from tests.hooks.graph_rows import add_graph


def test_refresh_writes_a_fresh_snapshot_that_any_write_invalidates(
    db: Database, db_path: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    add_item(
        db,
        "The engine module must stay free of network calls",
        files=["core/engine.py"],
        issue_number=3,
    )
    add_graph(db, ["core/engine.py", "web/api.py"], [("web/api.py", "core/engine.py")])
    checkpoint.create_workflow(db, 3, "feat/3-x")
    url = db.url
    db.close()
    assert refresh_snapshot(root, url)
    snapshot = load_snapshot(root, db_path)
    assert snapshot is not None
    (item,) = snapshot.matching_items(["core/engine.py"], [], None)
    assert item.files == ("core/engine.py",) and item.issue_number == 3
    assert snapshot.matching_items([], [], 3) == [item]
    assert snapshot.matching_items(["nope.py"], ["Nope"], 4) == []
    assert snapshot.blast_radius(["core/engine.py"], 2) == {"web/api.py": 1}
    workflow = snapshot.workflow_for(3, None)
    assert workflow is not None and workflow.branch == "feat/3-x"
    assert snapshot.workflow_for(None, "feat/3-x") == workflow
    assert not refresh_snapshot(root, url)  # already fresh: nothing to do

    other = open_database(url)
    add_item(other, "A later fact makes the snapshot stale for sure", files=["x.py"])
    other.close()
    assert load_snapshot(root, db_path) is None
    assert refresh_snapshot(root, url) and load_snapshot(root, db_path) is not None


def test_a_corrupt_or_foreign_snapshot_is_ignored(
    db: Database, db_path: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    db.close()
    snapshot_path(root).parent.mkdir(parents=True)
    snapshot_path(root).write_text("{broken")
    assert load_snapshot(root, db_path) is None
    assert load_snapshot(root, None) is None
    assert load_snapshot(root, tmp_path / "missing.db") is None


def test_build_snapshot_content(db: Database) -> None:
    add_item(db, "x " * 500 + "long item text here", files=["a.py"])
    content = build_snapshot(db)
    assert content["has_graph"] is False and content["graph"] == {}
    (row,) = content["items"]
    assert 600 < len(row[2]) <= 640  # more than the briefing shows, so it still adds "…"
