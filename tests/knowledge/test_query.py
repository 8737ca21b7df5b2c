"""Structured queries: items about files, areas, an issue; listing."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError
from kgraph.knowledge import list_items, query_items
from kgraph.knowledge.areas import AreaRules


def test_query_by_file_finds_the_file_then_its_area(db: Database, seeded: dict[str, str]) -> None:
    items = query_items(db, files=["src/api/handler.py"])
    ids = [i.id for i in items]
    assert ids[0] == seeded["handler"]  # direct file match ranks first
    assert set(ids) == {seeded["handler"], seeded["pattern"], seeded["other_file"]}


def test_query_without_area_expansion_is_file_only(db: Database, seeded: dict[str, str]) -> None:
    items = query_items(db, files=["src/api/handler.py"], expand_file_areas=False)
    assert [i.id for i in items] == [seeded["handler"]]


def test_query_for_an_unknown_file_uses_the_inferred_area(
    db: Database, seeded: dict[str, str]
) -> None:
    ids = {i.id for i in query_items(db, files=["src/api/new_endpoint.py"])}
    assert ids == {seeded["handler"], seeded["pattern"], seeded["other_file"]}
    rules = AreaRules(rules=(("src/api/", "Backend"),))
    assert query_items(db, files=["src/api/new_endpoint.py"], area_rules=rules) == []


def test_or_semantics_across_file_area_and_issue(db: Database, seeded: dict[str, str]) -> None:
    items = query_items(db, code_areas=["Documentation"], issue_number=12)
    assert {i.id for i in items} == {seeded["issue"], seeded["unrelated"]}
    assert items[0].id == seeded["issue"]  # issue (2) outranks area (1)


def test_types_filter_and_limit(db: Database, seeded: dict[str, str]) -> None:
    assert [i.id for i in query_items(db, code_areas=["API"], types=["pattern"])] == [
        seeded["pattern"]
    ]
    assert len(query_items(db, code_areas=["API"], limit=1)) == 1
    with pytest.raises(InvalidValueError):
        query_items(db, code_areas=["API"], limit=0)


def test_empty_query_returns_nothing(db: Database, seeded: dict[str, str]) -> None:
    assert query_items(db) == []


def test_list_items_recent_first_with_filters(db: Database, seeded: dict[str, str]) -> None:
    items = list_items(db)
    assert len(items) == 5 and items[0].id == seeded["unrelated"]
    assert [i.id for i in list_items(db, types=["Pattern"])] == [seeded["pattern"]]
    assert list_items(db, source="commit") == []
