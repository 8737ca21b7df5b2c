"""The batched writer stores exactly what item-by-item writes store (issue 36).

Each test builds two databases from the same starting state, writes the same items once
through ``write_items`` (what ``kgraph knowledge import`` uses) and once through
``write_item`` one at a time, and compares every row of ``entities``, ``relationships`` and
the full-text index (SQLite's FTS5 table with its rowids; PostgreSQL's tsvector column),
with the clock frozen so the stamps compare too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, text

from kgraph.db import Database, open_database
from kgraph.knowledge import add_item
from kgraph.knowledge import batch as batch_module
from kgraph.knowledge import store as store_module
from kgraph.knowledge.batch import write_items
from kgraph.knowledge.importer import import_knowledge
from kgraph.knowledge.model import content_hash, entity_id
from kgraph.knowledge.prepare import PreparedItem
from kgraph.knowledge.records import ENTITIES
from kgraph.knowledge.store import update_entity, write_item
from kgraph.knowledge.transfer import parse_lines
from tests.conftest import backend_url

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
COLLIDING = "A text whose short id another row already holds"

LINES = [
    {"content": "Retry the payment API twice", "files": ["src/billing/pay.py"], "issue": 7},
    {"content": "retry the  payment API twice", "files": ["src/billing/refund.py"]},
    {"content": "Use UTC everywhere", "type": "pattern", "files": ["src/core/time.py", "a.py"]},
    {"content": "Forgot the index", "type": "mistake", "code_area": "DB", "session_id": "s1"},
    {"content": "Already stored, now with an issue", "issue": 9, "files": ["src/api/x.py"]},
    {"content": "token = 'ghp_" + "a" * 36 + "' leaked", "files": ["src/auth/token.py"]},
    {"content": COLLIDING, "files": ["src/api/x.py"], "created_at": "2024-05-01T12:00:00Z"},
    {"content": "Captured candidate said again", "source": "manual"},
    {"content": "Same text, other type", "type": "mistake"},
    {"content": "Same text, other type"},
    {"content": "Use UTC everywhere", "type": "pattern", "files": ["src/core/time.py"]},
]


@pytest.fixture(autouse=True)
def _frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "utcnow", lambda: NOW)
    monkeypatch.setattr(batch_module, "utcnow", lambda: NOW)


@pytest.fixture
def other_db(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> Iterator[Database]:
    database = open_database(backend_url(request, backend, tmp_path / "other.db"))
    yield database
    database.close()


def _starting_state(db: Database) -> None:
    """Rows the batch meets: a duplicate, a File with its area, a taken id, a candidate."""
    add_item(db, "Already stored, now with an issue", files=["src/api/x.py"])
    held = add_item(db, "Captured candidate said again", source="transcript", session_id="s0")
    db.write(
        lambda conn: update_entity(
            conn, held.entity_id, hidden_at=NOW, data={"candidate": "pending"}
        )
    )
    taken = entity_id("Learning", COLLIDING, 10)
    db.write(
        lambda conn: conn.execute(
            insert(ENTITIES).values(
                id=taken,
                type="Topic",
                content="holder",
                content_hash=content_hash("holder"),
                data={},
                created_at=NOW,
                updated_at=NOW,
            )
        )
    )


def _items() -> list[PreparedItem]:
    parsed = parse_lines([json.dumps(line) for line in LINES], "t.jsonl")
    return [p for p in parsed if isinstance(p, PreparedItem)]


def _snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that matters, in storage order where the order is part of the result."""

    def read(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
        columns = (
            "id, type, content, content_hash, data, confidence, source, source_ref, "
            "issue_number, session_id, seen_count, hidden_at, created_at, updated_at"
        )
        snap = {
            "entities": [tuple(r) for r in conn.execute(text(f"SELECT {columns} FROM entities"))],
            "relationships": [
                tuple(r)
                for r in conn.execute(
                    text("SELECT id, from_id, to_id, type, data, created_at FROM relationships")
                )
            ],
        }
        snap["entities"].sort(key=lambda r: r[0])
        snap["relationships"].sort(key=lambda r: r[0])
        if db.dialect == "sqlite":
            snap["rowids"] = [
                tuple(r) for r in conn.execute(text("SELECT rowid, id FROM entities"))
            ]
            snap["fts"] = [
                tuple(r)
                for r in conn.execute(
                    text("SELECT rowid, entity_id, content FROM entities_fts ORDER BY rowid")
                )
            ]
        else:
            snap["fts"] = [
                tuple(r)
                for r in conn.execute(
                    text("SELECT id, search_vector::text FROM entities ORDER BY id")
                )
            ]
        return snap

    return db.read(read)


@pytest.mark.parametrize("bump", [False, True])
def test_batched_and_item_by_item_writes_store_the_same_rows(
    db: Database, other_db: Database, bump: bool
) -> None:
    for database in (db, other_db):
        _starting_state(database)
    items = _items()
    batched = db.write(lambda conn: write_items(conn, items, bump=bump))
    one_by_one = [other_db.write(lambda conn, i=i: write_item(conn, i, bump=bump)) for i in items]
    assert batched == one_by_one
    assert [r.created for r in batched].count(False) == 4
    snapshot = _snapshot(db)
    assert snapshot == _snapshot(other_db)
    assert not any("ghp_" in str(row) for row in snapshot["entities"] + snapshot["fts"])
    assert entity_id("Learning", COLLIDING, 10) not in {r.entity_id for r in batched}


def test_import_matches_item_by_item_and_a_second_import_adds_nothing(
    db: Database, other_db: Database
) -> None:
    for database in (db, other_db):
        _starting_state(database)
    lines = [json.dumps(line) for line in LINES]
    report = import_knowledge(db, lines, name="t.jsonl")
    for item in _items():
        other_db.write(lambda conn, item=item: write_item(conn, item, bump=False))
    first = _snapshot(db)
    assert first == _snapshot(other_db)
    assert report.created == 7
    again = import_knowledge(db, lines, name="t.jsonl")
    assert (again.created, again.merged) == (0, 0)
    assert again.unchanged == len(LINES)
    assert _snapshot(db) == first


def test_a_batch_with_vectors_takes_the_item_by_item_path(db: Database, fake: Any) -> None:
    from dataclasses import replace

    items = [replace(i, vector=fake.embed([i.text])[0], model=fake.model_name) for i in _items()]
    results = db.write(lambda conn: write_items(conn, items))
    assert [r.created for r in results].count(True) == 9  # 11 lines, 2 said twice
