"""Stats, area/file listings and the prune policy."""

from __future__ import annotations

from datetime import timedelta

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.embeddings import Embedder
from kgraph.knowledge import add_item, get_item, set_hidden, supersede
from kgraph.knowledge.maintenance import list_areas, list_files, prune, stats


def test_stats_count_types_sources_vectors_and_edges(db: Database, fake: Embedder) -> None:
    a = add_item(db, "a fact", files=["src/api/x.py"], embedder=fake).entity_id
    b = add_item(db, "b fact", source="commit", source_ref="abc").entity_id
    add_item(db, "c pattern", type="Pattern", code_area="API")
    supersede(db, a, b)
    set_hidden(db, b, True)
    result = stats(db)
    assert result.by_type == {"Learning": 2, "Pattern": 1, "CodeArea": 1, "File": 1}
    assert result.hidden == 1 and result.superseded == 1 and result.candidates == 0
    assert result.by_source == {"manual": 2, "commit": 1}
    assert result.embedded == {"kgraph-hash-384": 1}
    assert result.relationships["SUPERSEDES"] == 1 and result.relationships["APPLIES_TO"] == 1


def test_areas_and_files_list_counts(db: Database) -> None:
    add_item(db, "one", files=["src/api/a.py"])
    add_item(db, "two", files=["src/api/a.py", "src/api/b.py"])
    add_item(db, "three", files=["tests/test_a.py"])
    areas = {a.name: (a.items, a.files) for a in list_areas(db)}
    assert areas == {"API": (2, 2), "Testing": (1, 1)}
    files = list_files(db)
    assert next((f.name, f.items, f.area) for f in files) == ("src/api/a.py", 2, "API")
    assert [f.name for f in list_files(db, code_area="testing")] == ["tests/test_a.py"]


def test_prune_is_a_dry_run_by_default_and_hides_on_apply(db: Database) -> None:
    low = add_item(db, "maybe use tabs", confidence=0.2).entity_id
    stale = add_item(
        db,
        "worked on testing",
        source="transcript",
        confidence=0.5,
        created_at=utcnow() - timedelta(days=400),
    ).entity_id
    fresh_auto = add_item(db, "captured today", source="transcript", confidence=0.5).entity_id
    old_manual = add_item(
        db, "old but manual", confidence=0.5, created_at=utcnow() - timedelta(days=400)
    ).entity_id
    seen_often = add_item(
        db,
        "seen often",
        source="transcript",
        confidence=0.5,
        created_at=utcnow() - timedelta(days=400),
    ).entity_id
    add_item(db, "seen often", source="transcript", confidence=0.5)
    candidates = {c.item.id: c.reason for c in prune(db)}
    assert candidates == {low: "low-confidence", stale: "stale"}
    assert get_item(db, low).hidden_at is None  # dry run wrote nothing
    applied = prune(db, apply=True)
    assert {c.item.id for c in applied} == {low, stale}
    assert get_item(db, stale).data["hidden_reason"] == "pruned: stale"
    assert prune(db) == []
    for kept in (fresh_auto, old_manual, seen_often):
        assert get_item(db, kept).hidden_at is None
    set_hidden(db, low, False)
    assert get_item(db, low).hidden_at is None
