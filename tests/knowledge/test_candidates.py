"""Candidates: stored hidden, shown once corroborated or accepted, rejected for good."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError
from kgraph.knowledge import add_item, list_items
from kgraph.knowledge.candidates import list_candidates, review, state
from kgraph.knowledge.maintenance import stats
from kgraph.knowledge.prepare import prepare_item
from kgraph.knowledge.search import search
from kgraph.knowledge.store import AddResult, write_item

CAUSE = "`parse_header` splits on every colon, so a header value holding a URL was cut short."
OTHER = "The retry loop in `send_batch` slept with the lock held, so every writer waited on it."


def capture(
    db: Database, text: str, session: str, *, candidate: bool = True, origin: str = "explanation"
) -> AddResult:
    """What capture does with one found item (kgraph.capture.session_write.write)."""
    item = prepare_item(
        text,
        type="Mistake",
        files=["src/http.py"],
        source="transcript",
        session_id=session,
        data={"origin": origin},
    )
    return db.write(lambda conn: write_item(conn, replace(item, candidate=candidate)))


def shown(db: Database) -> list[str]:
    return [i.id for i in list_items(db)]


def test_a_candidate_is_stored_hidden_from_lists_and_search_and_waits_for_review(
    db: Database,
) -> None:
    stored = capture(db, CAUSE, "s1")
    assert stored.created and shown(db) == []
    assert search(db, "parse_header colon URL") == []
    (pending,) = list_candidates(db)
    assert pending.id == stored.entity_id and state(pending.data) == "pending"


def test_the_same_session_saying_it_again_is_not_corroboration(db: Database) -> None:
    capture(db, CAUSE, "s1")
    capture(db, CAUSE, "s1")
    assert shown(db) == [] and len(list_candidates(db)) == 1


def test_another_session_saying_it_again_shows_it(db: Database) -> None:
    first = capture(db, CAUSE, "s1")
    again = capture(db, CAUSE, "s2")
    assert again.entity_id == first.entity_id and not again.created
    (item,) = list_items(db)
    assert state(item.data) == "corroborated" and item.data["corroborated_by"] == "session"
    assert item.seen_count == 2 and search(db, "parse_header colon URL")


def test_a_trusted_origin_saying_it_shows_it(db: Database) -> None:
    capture(db, CAUSE, "s1")
    capture(db, CAUSE, "s1", candidate=False, origin="summary.errors")
    (item,) = list_items(db)
    assert item.data["corroborated_by"] == "summary.errors"


def test_review_accepts_or_rejects_and_a_rejected_candidate_stays_hidden(db: Database) -> None:
    kept = capture(db, CAUSE, "s1").entity_id
    dropped = capture(db, OTHER, "s1").entity_id
    assert review(db, kept[:8], True) == kept
    assert review(db, dropped, False) == dropped
    assert shown(db) == [kept] and list_candidates(db) == []
    capture(db, OTHER, "s2")  # said again by another session: a person said no
    assert shown(db) == [kept]


def test_only_a_captured_candidate_can_be_reviewed(db: Database) -> None:
    manual = add_item(db, "Always pin the SQLAlchemy minor version; 2.1 segfaults here.")
    with pytest.raises(InvalidValueError, match="not a captured candidate"):
        review(db, manual.entity_id, False)
    assert shown(db) == [manual.entity_id]


def test_another_session_saying_it_in_other_words_shows_both_once_embedded(
    db: Database,
) -> None:
    from kgraph.embeddings import get_embedder
    from kgraph.knowledge.backfill import embed_missing
    from kgraph.knowledge.candidates import corroborate_similar

    first = capture(db, CAUSE, "s1").entity_id
    reworded = CAUSE.replace("every colon", "each colon")  # cosine 0.94 with the hashing model
    second = capture(db, reworded, "s2").entity_id
    same_session = capture(db, OTHER, "s1").entity_id
    capture(db, OTHER.replace("every writer", "each writer"), "s1")  # the same session
    fake = get_embedder("fake")
    embed_missing(db, fake)
    assert corroborate_similar(db, fake.model_name, fake.dim) == 2
    assert set(shown(db)) == {first, second}
    assert same_session in {i.id for i in list_candidates(db)}
    assert corroborate_similar(db, fake.model_name, fake.dim) == 0  # nothing pending left


def test_a_rejected_item_corroborates_nothing(db: Database) -> None:
    from kgraph.embeddings import get_embedder
    from kgraph.knowledge.backfill import embed_missing
    from kgraph.knowledge.candidates import corroborate_similar

    review(db, capture(db, CAUSE, "s1").entity_id, False)
    capture(db, CAUSE.replace("every colon", "each colon"), "s2")
    fake = get_embedder("fake")
    embed_missing(db, fake)
    assert corroborate_similar(db, fake.model_name, fake.dim) == 0 and shown(db) == []


def test_restoring_a_candidate_accepts_it(db: Database) -> None:
    from kgraph.knowledge import set_hidden

    stored = capture(db, CAUSE, "s1").entity_id
    set_hidden(db, stored, False)  # `kgraph knowledge restore ID`
    (item,) = list_items(db)
    assert item.id == stored and state(item.data) == "accepted" and list_candidates(db) == []


def test_stats_count_the_candidates_waiting_not_the_hidden_or_reviewed(db: Database) -> None:
    first = capture(db, CAUSE, "s1").entity_id
    second = capture(db, OTHER, "s1").entity_id
    assert stats(db).candidates == 2 and stats(db).hidden == 2
    review(db, first, accept=True)
    review(db, second, accept=False)
    assert stats(db).candidates == 0 and stats(db).hidden == 1
