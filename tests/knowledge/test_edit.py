"""Changing stored knowledge: link errors, supersession, forget and restore, merging."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge import add_item, get_item, link, query_items, set_hidden, supersede
from kgraph.knowledge.edit import merge_into, unsupersede


def test_link_errors(db: Database) -> None:
    a = add_item(db, "fact a").entity_id
    b = add_item(db, "fact b").entity_id
    with pytest.raises(InvalidValueError, match="relationship type"):
        link(db, a, b, "LIKES")
    with pytest.raises(NotFoundError, match="no knowledge item lrn-nope"):
        link(db, a, "lrn-nope", "LED_TO")
    with pytest.raises(InvalidValueError, match="itself"):
        link(db, a, a, "LED_TO")
    supersede(db, a, b)
    with pytest.raises(InvalidValueError, match="already supersedes"):
        supersede(db, b, a)


def test_supersede_and_forget_hide_without_deleting(db: Database) -> None:
    old = add_item(db, "Use print for logging", files=["src/app.py"]).entity_id
    new = add_item(db, "Use structlog for logging", files=["src/app.py"]).entity_id
    assert supersede(db, old[:8], new) == (old, new)  # prefixes resolve
    visible = [i.id for i in query_items(db, files=["src/app.py"])]
    assert visible == [new]
    everything = {i.id for i in query_items(db, files=["src/app.py"], include_superseded=True)}
    assert everything == {old, new}
    assert get_item(db, old).superseded_by == (new,) and not get_item(db, old).active
    assert unsupersede(db, old) == 1
    set_hidden(db, new, True, reason="wrong")
    assert [i.id for i in query_items(db, files=["src/app.py"])] == [old]
    assert get_item(db, new).data["hidden_reason"] == "wrong"
    set_hidden(db, new, False)
    assert {i.id for i in query_items(db, files=["src/app.py"])} == {old, new}


def test_merge_into_moves_counts_links_and_supersedes(db: Database) -> None:
    keep = add_item(db, "close sessions", files=["a.py"]).entity_id
    drop = add_item(db, "close your sessions", files=["b.py"], issue_number=7).entity_id
    merge_into(db, keep, drop)
    kept = get_item(db, keep)
    assert kept.seen_count == 2 and set(kept.files) == {"a.py", "b.py"}
    assert kept.issue_number == 7 and kept.data["variants"] == ["close your sessions"]
    assert get_item(db, drop).superseded_by == (keep,)
