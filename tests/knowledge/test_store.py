"""Storing knowledge: entities, links, de-duplication, redaction, relearning a forgotten item."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from kgraph.db import Database
from kgraph.embeddings import Embedder
from kgraph.errors import InvalidValueError
from kgraph.knowledge import add_item, get_item, link, set_hidden
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS, item_edges


def _edges(db: Database) -> set[tuple[str, str, str]]:
    rows = db.read(
        lambda c: c.execute(
            select(RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.type, RELATIONSHIPS.c.to_id)
        ).all()
    )
    return {(a, t, b) for a, t, b in rows}


def _count(db: Database, type_: str) -> int:
    return len(
        db.read(lambda c: c.execute(select(ENTITIES.c.id).where(ENTITIES.c.type == type_)).all())
    )


def test_learning_with_a_file_creates_file_area_and_edges(db: Database) -> None:
    result = add_item(db, "Use structured logging via rd-logger", files=["src/api/handler.py"])
    assert result.created and result.entity_id.startswith("lrn-")
    item = get_item(db, result.entity_id)
    assert item.type == "Learning" and item.files == ("src/api/handler.py",)
    assert item.code_areas == ("API",) and item.seen_count == 1 and item.confidence == 0.7
    edges = {(t, b) for a, t, b in _edges(db) if a == result.entity_id}
    assert edges == {
        ("IN_FILE", "file-" + edges_target(edges, "IN_FILE")[5:]),
        ("ABOUT", "area-api"),
    }
    # the file belongs to its area
    file_id = edges_target(edges, "IN_FILE")
    assert (file_id, "ABOUT", "area-api") in _edges(db)


def edges_target(edges: set[tuple[str, str]], type_: str) -> str:
    return next(b for t, b in edges if t == type_)


def test_code_area_and_file_entities_are_created_once(db: Database) -> None:
    add_item(db, "first fact", files=["src/api/a.py"])
    add_item(db, "second fact", files=["src/api/a.py", "src/api/b.py"])
    add_item(db, "third fact", code_area="API")
    assert _count(db, "CodeArea") == 1
    assert _count(db, "File") == 2


def test_same_content_is_stored_once_and_bumped(db: Database) -> None:
    first = add_item(db, "Retry  SQLite writes on 'database is locked'.", confidence=0.6)
    again = add_item(
        db,
        "retry sqlite writes on 'database is locked'",
        confidence=0.6,
        files=["kgraph/db/retry.py"],
    )
    assert not again.created and again.entity_id == first.entity_id
    assert again.duplicate_of == "exact"
    item = get_item(db, first.entity_id)
    assert item.seen_count == 2
    assert item.confidence == pytest.approx(0.65)
    assert item.content == "Retry  SQLite writes on 'database is locked'."  # first text kept
    assert item.files == ("kgraph/db/retry.py",)  # the new file is linked
    assert _count(db, "Learning") == 1


def test_same_text_of_another_type_is_a_separate_item(db: Database) -> None:
    a = add_item(db, "validate input at the boundary")
    b = add_item(db, "validate input at the boundary", type="pattern")
    assert a.entity_id != b.entity_id and b.entity_id.startswith("pat-")


def test_near_duplicates_merge_when_a_vector_is_at_hand(db: Database, fake: Embedder) -> None:
    first = add_item(db, "Always close database sessions with a context manager", embedder=fake)
    near = add_item(
        db, "Always close database sessions with a context manager!!", embedder=fake
    )  # punctuation only: same normalised text
    assert near.duplicate_of == "exact"
    variant = add_item(
        db, "always close the database sessions with a context manager", embedder=fake
    )
    assert not variant.created and variant.duplicate_of == "near"
    item = get_item(db, first.entity_id)
    assert item.seen_count == 3
    assert item.data["variants"] == ["always close the database sessions with a context manager"]
    other = add_item(db, "Paginate API results with cursors", embedder=fake)
    assert other.created


def test_ids_are_deterministic_across_databases(tmp_path: Path) -> None:
    from kgraph.db import open_database

    ids = []
    for name in ("a.db", "b.db"):
        other = open_database(f"sqlite:///{tmp_path / name}")
        ids.append(add_item(other, "Same fact in two clones", files=["x/y.py"]).entity_id)
        other.close()
    assert ids[0] == ids[1]


def test_pattern_applies_to_its_area_and_mistake_leads_to_learning(db: Database) -> None:
    pattern = add_item(db, "Handlers validate input with pydantic", type="Pattern", code_area="API")
    assert (pattern.entity_id, "APPLIES_TO", "area-api") in _edges(db)
    mistake = add_item(db, "Forgot to await the db call", type="mistake", code_area="API")
    fix = add_item(db, "Await every async db call", code_area="API")
    link(db, mistake.entity_id, fix.entity_id, "LED_TO")
    link(db, mistake.entity_id, fix.entity_id, "led_to")  # idempotent
    assert sum(1 for e in _edges(db) if e[1] == "LED_TO") == 1
    _, edges = item_edges(db, fix.entity_id)
    assert [(e.direction, e.type, e.other_id) for e in edges if e.type == "LED_TO"] == [
        ("in", "LED_TO", mistake.entity_id)
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"content": "   "}, "content is empty"),
        ({"content": "x", "confidence": 1.5}, "between 0 and 1"),
        ({"content": "x", "type": "CodeArea"}, "invalid type"),
        ({"content": "x", "source": "rumour"}, "invalid source"),
        ({"content": "x" * 20_001}, "max 20000"),
    ],
)
def test_invalid_items_are_rejected(db: Database, kwargs: dict[str, object], message: str) -> None:
    kwargs = dict(kwargs)  # the parameters are shared by both backends' runs
    content = kwargs.pop("content")
    with pytest.raises(InvalidValueError, match=message):
        add_item(db, content, **kwargs)  # type: ignore[arg-type]


def test_secrets_are_redacted_before_storage(db: Database) -> None:
    result = add_item(
        db,
        "deploy with DB_PASSWORD=hunter22 and ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        source_ref="https://bob:pa55word@git.example.com/repo",
        data={"cmd": "export API_KEY='abc123def456'"},
    )
    item = get_item(db, result.entity_id)
    for secret in (
        "hunter22",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "pa55word",
        "abc123def456",
    ):
        assert secret not in str(item.to_dict())
    assert "[REDACTED:" in item.content


def test_absolute_files_become_repo_relative(db: Database, tmp_path: Path) -> None:
    result = add_item(
        db, "fact", files=[str(tmp_path / "src" / "api" / "x.py")], project_root=tmp_path
    )
    assert get_item(db, result.entity_id).files == ("src/api/x.py",)


def test_manual_relearn_restores_a_forgotten_item(db: Database) -> None:
    item = add_item(db, "keep migrations reversible").entity_id
    set_hidden(db, item, True)
    add_item(db, "keep migrations reversible", source="transcript")
    assert get_item(db, item).hidden_at is not None  # automatic capture does not resurrect
    add_item(db, "keep migrations reversible")
    assert get_item(db, item).hidden_at is None
