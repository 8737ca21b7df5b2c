"""Where a stored item came from: its commit, and what its data recorded at capture."""

from __future__ import annotations

import json

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall import items as recall
from kgraph.recall import provenance
from kgraph.recall.items import RecallItem


def _item(content: str, origin: str | None) -> RecallItem:
    data = json.dumps({"origin": origin} if origin else {"x": 1})
    return RecallItem("lrn-1", "Learning", content, 0.8, None, (), (), None, data=data)


def test_the_code_an_item_named_at_capture_is_read_back(db: Database, conn: ReadConnection) -> None:
    held = add_item(
        db, "readSessionID reads the state file", files=["a.go"], data={"code": ["readSessionID"]}
    )
    empty = add_item(db, "The state file is JSON lines", files=["a.go"], data={"code": []})
    older = add_item(db, "The state file lives under .git", files=["a.go"], data={"x": 1})
    found = recall.load_items(conn, [held.entity_id, empty.entity_id, older.entity_id])
    assert provenance.held_code(found[held.entity_id].data) == ("readSessionID",)
    assert provenance.held_code(found[empty.entity_id].data) == ()
    # stored before capture recorded it
    assert provenance.held_code(found[older.entity_id].data) is None


def test_the_newest_items_learned_from_commits_and_their_shas(
    db: Database, conn: ReadConnection
) -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    older = add_item(db, "Retries back off", source="commit", source_ref=sha)
    newer = add_item(db, "Pool size is read once", source="commit", source_ref=f"{sha[:12]}:42")
    add_item(db, "The pool is per client", source="manual", source_ref=sha)
    add_item(db, "A ref that is no sha", source="commit", source_ref="HEAD~1")
    found = provenance.commit_items(conn, 10)
    assert found == {older.entity_id: sha, newer.entity_id: sha[:12]}
    every = [older.entity_id, newer.entity_id, *(f"lrn-{i}" for i in range(1_200))]
    refs = provenance.commit_refs(conn, every)  # asked in parts; the others are not named
    assert {i: r.sha for i, r in refs.items()} == found
    assert all(r.at is not None for r in refs.values())


def test_the_other_parts_of_a_commit_shown_are_its_siblings(
    db: Database, conn: ReadConnection
) -> None:
    # The parts of a long message are stored as "<sha>" and "<sha>:<n>" (capture.extract).
    sha, other = "ab" * 20, "ac" * 20
    first = add_item(db, "Spool push bodies — the first part", source="commit", source_ref=sha)
    second = add_item(
        db, "Spool push bodies — a later part", source="commit", source_ref=f"{sha}:1"
    )
    third = add_item(
        db, "Spool push bodies — the last part", source="commit", source_ref=f"{sha}:2"
    )
    add_item(db, "Another commit of the same prefix", source="commit", source_ref=other)
    add_item(db, "Typed by hand about it", source="manual", source_ref=f"{sha}:3")
    assert provenance.commit_siblings(conn, [first.entity_id]) == {
        second.entity_id,
        third.entity_id,
    }
    assert provenance.commit_siblings(conn, [second.entity_id, third.entity_id]) == {
        first.entity_id
    }
    assert provenance.commit_siblings(conn, ["lrn-nothing"]) == set()


def test_a_review_s_answer_or_a_what_commit_is_shown_only_where_it_is_named() -> None:
    assert provenance.named_only(_item("Address review feedback", "commit.review"))
    assert provenance.named_only(_item("Add colored badges", "history.what"))
    assert not provenance.named_only(_item("Retry on 503: the proxy warms up", "commit"))
    assert not provenance.named_only(_item("Typed by hand", None))
    # a library item carries its data as a dict
    assert provenance.named_only(type("Item", (), {"data": {"origin": "commit.what"}})())


def test_a_commit_s_list_of_three_changes_is_a_change_list() -> None:
    body = "Rework the pool\n\n- Move the lock\n- Drop the retry\n- Rename the queue"
    assert provenance.lists_changes(_item(body, "commit"))
    assert provenance.lists_changes(_item(body.replace("\n- ", " * "), "history"))
    assert not provenance.lists_changes(_item(body.rsplit("\n", 1)[0], "commit"))  # two
    # the same list written by hand, or said in a session, is not a commit's
    assert not provenance.lists_changes(_item(body, "explanation"))
    assert not provenance.lists_changes(_item(body, None))
    assert provenance.learned_from_commit(json.dumps({"origin": "history.what"}))
    assert not provenance.learned_from_commit("not json")
