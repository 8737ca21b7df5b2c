"""JSONL export/import: lossless round trip, idempotence, simple lines, redaction."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kgraph.db import Database, open_database
from kgraph.errors import InvalidValueError
from kgraph.knowledge import add_item, get_item, link, query_items, set_hidden, supersede
from kgraph.knowledge.export import export_knowledge, export_lines
from kgraph.knowledge.importer import import_knowledge


def _populate(db: Database) -> None:
    a = add_item(
        db,
        "Log with rd-logger",
        files=["src/api/handler.py"],
        issue_number=3,
        source="commit",
        source_ref="abc123",
        data={"why": "prod drops print"},
    ).entity_id
    add_item(db, "Log with rd-logger", files=["src/api/other.py"])  # seen twice
    b = add_item(db, "Use structlog", files=["src/api/handler.py"]).entity_id
    m = add_item(db, "print() vanished", type="Mistake", session_id="sess-1").entity_id
    p = add_item(db, "Validate with pydantic", type="Pattern", code_area="API").entity_id
    link(db, m, b, "LED_TO")
    supersede(db, a, b)
    set_hidden(db, p, True, reason="outdated")


def _export(db: Database) -> str:
    out = io.StringIO()
    export_knowledge(db, out)
    return out.getvalue()


def test_export_import_export_is_identical(db: Database, tmp_path: Path) -> None:
    _populate(db)
    first = _export(db)
    other = open_database(f"sqlite:///{tmp_path / 'copy.db'}")
    report = import_knowledge(other, first.splitlines())
    assert report.created == first.count('"kind": "entity"') == 7  # 4 items, 1 area, 2 files
    assert report.relationships_added == first.count('"kind": "relationship"') == 10
    assert _export(other) == first
    other.close()


def test_export_keeps_superseded_and_hidden_items(db: Database) -> None:
    _populate(db)
    records = [json.loads(line) for line in export_lines(db)]
    assert records[0] == {"kind": "kgraph-knowledge", "version": 1}
    entities = [r for r in records if r["kind"] == "entity"]
    assert any(r["hidden_at"] for r in entities)
    assert any(r["type"] == "SUPERSEDES" for r in records if r["kind"] == "relationship")
    assert next(r for r in entities if r["content"] == "Log with rd-logger")["seen_count"] == 2


def test_importing_twice_changes_nothing(db: Database, tmp_path: Path) -> None:
    _populate(db)
    text = _export(db)
    other = open_database(f"sqlite:///{tmp_path / 'copy.db'}")
    import_knowledge(other, text.splitlines())
    after_first = _export(other)
    again = import_knowledge(other, text.splitlines())
    assert again.created == 0 and again.merged == 0 and again.relationships_added == 0
    assert again.unchanged == 7
    assert _export(other) == after_first
    # importing into the source database itself is a no-op too
    assert import_knowledge(db, text.splitlines()).unchanged == 7
    assert _export(db) == text
    other.close()


def test_import_merges_with_existing_items(db: Database, tmp_path: Path) -> None:
    add_item(db, "Shared fact", confidence=0.5)
    source = open_database(f"sqlite:///{tmp_path / 'src.db'}")
    for _ in range(3):
        add_item(source, "shared FACT", confidence=0.8)
    report = import_knowledge(db, export_lines(source))
    assert report.merged == 1 and report.created == 0
    source.close()
    merged = get_item(db, add_item(db, "Shared fact", bump=False).entity_id)
    assert merged.seen_count == 3 and merged.confidence >= 0.85


def test_simple_lines_from_other_tools(db: Database) -> None:
    lines = [
        json.dumps(
            {
                "content": "Use UTC everywhere",
                "type": "learning",
                "files": ["src/time.py"],
                "code_area": "Time",
                "confidence": 0.8,
                "issue": 12,
            }
        ),
        "",
        json.dumps({"content": "Prefer composition", "type": "pattern"}),
    ]
    report = import_knowledge(db, lines, name="notes.jsonl")
    assert report.created == 2
    [item] = query_items(db, issue_number=12)
    assert item.code_areas == ("Time",) and item.files == ("src/time.py",)
    assert item.source == "import" and item.source_ref == "notes.jsonl"
    assert item.confidence == 0.8
    again = import_knowledge(db, lines, name="notes.jsonl")
    assert again.created == 0 and again.unchanged == 2


def test_a_simple_line_keeps_when_it_was_learned(db: Database) -> None:
    line = {"content": "Retry on 503 only", "issue": 7, "created_at": "2021-03-04T05:06:07Z"}
    import_knowledge(db, [json.dumps(line)])
    [item] = query_items(db, issue_number=7)
    assert item.created_at.year == 2021 and item.updated_at == item.created_at
    with pytest.raises(InvalidValueError, match="time zone"):
        import_knowledge(db, [json.dumps({**line, "created_at": "2021-03-04T05:06:07"})])
    assert get_item(db, item.id).seen_count == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('{"kind": "entity", "id": "x"}', "line 2: an entity needs id and content"),
        ('{"kind": "relationship", "from": "a", "to": "b", "type": "HATES"}', "line 2: invalid"),
        ('{"kind": "kgraph-knowledge", "version": 9}', "line 2: unsupported version"),
        ('{"content": "x", "confidence": "high"}', "line 2: confidence must be a number"),
        ('{"something": 1}', "line 2: unknown line kind"),
    ],
)
def test_bad_lines_name_the_line_and_write_nothing(db: Database, line: str, message: str) -> None:
    good = json.dumps({"content": "a good line"})
    with pytest.raises(InvalidValueError, match=message):
        import_knowledge(db, [good, line])
    assert query_items(db, code_areas=["Root"]) == [] and _export(db).count("\n") == 1


def test_relationships_to_unknown_entities_are_skipped(db: Database) -> None:
    line = json.dumps(
        {
            "kind": "relationship",
            "from": "lrn-a",
            "to": "lrn-b",
            "type": "LED_TO",
            "data": None,
            "created_at": "2026-01-01T00:00:00Z",
        }
    )
    assert import_knowledge(db, [line]).relationships_skipped == 1
