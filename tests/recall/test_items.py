"""The shared read model, on a stdlib connection and on a SQLAlchemy transaction's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kgraph.db import Database
from kgraph.db.reader import ReadConnection, raw_connection
from kgraph.knowledge.edit import set_hidden, supersede
from kgraph.knowledge.store import add_item
from kgraph.recall import items as recall

HOUR = timedelta(hours=1)
YEAR_AGO = datetime(2025, 1, 1, tzinfo=UTC)


def test_items_about_files_and_areas_leave_out_hidden_and_superseded(
    db: Database, conn: ReadConnection
) -> None:
    keep = add_item(db, "The lexer keeps a stack of open tags", files=["mako/lexer.py"])
    old = add_item(db, "The lexer used regexes for every tag once", files=["mako/lexer.py"])
    new = add_item(db, "The lexer compiles its regexes at import time", files=["mako/lexer.py"])
    supersede(db, old.entity_id, new.entity_id)
    gone = add_item(db, "The lexer had a debug flag that printed tokens", files=["mako/lexer.py"])
    set_hidden(db, gone.entity_id, True)
    add_item(db, "Pattern for the runtime area", type="Pattern", code_area="Runtime")
    found = recall.items_about(conn, ["mako/lexer.py"])
    assert [i.id for i in found] == sorted([keep.entity_id, new.entity_id])
    item = next(i for i in found if i.id == keep.entity_id)
    assert item.files == ("mako/lexer.py",) and item.type == "Learning"
    assert item.updated_at is not None and item.updated_at.tzinfo is not None
    by_area = recall.items_about(conn, areas=["Runtime"])
    assert [i.type for i in by_area] == ["Pattern"]


def test_frequencies_count_items_per_file(db: Database, conn: ReadConnection) -> None:
    for i in range(3):
        add_item(db, f"Changelog entry number {i} about a fix", files=["CHANGES", f"src/m{i}.py"])
    counts = recall.file_frequencies(conn, ["CHANGES", "src/m0.py", "never.py"])
    assert counts == {"CHANGES": 3, "src/m0.py": 1}
    assert recall.item_count(conn) == 3


def test_lexical_ids_rank_by_bm25(db: Database, conn: ReadConnection) -> None:
    best = add_item(db, "Connection retries back off in the transport retries loop").entity_id
    other = add_item(db, "The connection pool size is configurable").entity_id
    assert recall.lexical_ids(conn, "connection retries") == [best, other]
    assert recall.lexical_ids(conn, "zebra") == []


def test_project_rules_are_repeated_confident_patterns_and_mistakes(
    db: Database, conn: ReadConnection
) -> None:
    rule = "Never call the network from the template layer"
    for _ in range(3):
        add_item(db, rule, type="Pattern", confidence=0.9)
    add_item(db, "Seen once only, a pattern", type="Pattern", confidence=0.9)
    add_item(db, "A learning seen many times over", confidence=0.9)
    add_item(db, "A learning seen many times over", confidence=0.9)
    rules = recall.project_rules(conn)
    assert [r.content for r in rules] == [rule]


def test_the_same_queries_run_under_a_sqlalchemy_transaction(
    db: Database, conn: ReadConnection
) -> None:
    add_item(db, "Template lookups cache compiled modules", files=["mako/lookup.py"])
    direct = recall.items_about(conn, ["mako/lookup.py"])
    through = db.read(lambda c: recall.items_about(raw_connection(c), ["mako/lookup.py"]))
    assert direct == through and len(direct) == 1


def test_a_bounded_file_gives_its_mistakes_then_patterns_then_its_newest(
    db: Database, conn: ReadConnection
) -> None:
    day = datetime.now(UTC) - timedelta(days=10)  # recent: recency orders equals
    learnings = [
        add_item(
            db, f"Lexer learning {n} about tags", files=["lexer.py"], created_at=day + n * HOUR
        ).entity_id
        for n in range(5)
    ]
    old_mistake = add_item(
        db, "Lexer mistake: a stray brace", type="Mistake", files=["lexer.py"], created_at=day
    ).entity_id
    pattern = add_item(
        db, "Lexer pattern: one regex a tag", type="Pattern", files=["lexer.py"], created_at=day
    ).entity_id
    other = add_item(db, "Parser learning", files=["parser.py"], created_at=day).entity_id
    # Old items rank by confidence alone: the surer of two comes first.
    sure = add_item(db, "Old sure note", files=["old.py"], confidence=0.9, created_at=YEAR_AGO)
    add_item(db, "Old unsure note", files=["old.py"], confidence=0.5, created_at=YEAR_AGO)
    assert [i.id for i in recall.items_about(conn, ["old.py"], most_per_file=1)] == [sure.entity_id]
    found = {i.id for i in recall.items_about(conn, ["lexer.py", "parser.py"], most_per_file=4)}
    assert found == {old_mistake, pattern, learnings[4], learnings[3], other}
    assert len(recall.items_about(conn, ["lexer.py"])) == 7  # unbounded: every item


def test_items_of_types_only(db: Database, conn: ReadConnection) -> None:
    add_item(db, "A learning about the cache", files=["cache.py"])
    mistake = add_item(db, "A mistake in the cache", type="Mistake", files=["cache.py"])
    found = recall.items_about(conn, ["cache.py"], types=frozenset({"Mistake", "Pattern"}))
    assert [i.id for i in found] == [mistake.entity_id]


def test_a_bounded_issue_gives_its_first_items(db: Database, conn: ReadConnection) -> None:
    day = datetime.now(UTC) - timedelta(days=10)
    ids = [
        add_item(db, f"Issue note {n}", issue_number=7, created_at=day + n * HOUR).entity_id
        for n in range(4)
    ]
    assert {i.id for i in recall.items_of_issue(conn, 7, most=2)} == set(ids[2:])
    assert len(recall.items_of_issue(conn, 7)) == 4


def test_term_counts_stop_at_the_limit(db: Database, conn: ReadConnection) -> None:
    for n in range(6):
        add_item(db, f"The retry loop number {n} backs off")
    add_item(db, "A rare zebra appears")
    counts = recall.term_frequencies(conn, {"retry": "retry", "zebra": "zebra"}, 4)
    assert counts == {"retry": 4, "zebra": 1}
