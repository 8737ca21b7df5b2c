"""The reads a picture needs: the whole file-level graph, and callees (forward ``calls``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from kgraph.codegraph.neighbours import FileGraph, callees, file_graph
from kgraph.db import Database
from kgraph.db.models import GraphQuery, table_of
from kgraph.errors import InvalidValueError


@pytest.fixture
def app_db(db: Database, app_repo: Path, parse: Callable[..., object]) -> Database:
    parse(app_repo)
    return db


def test_file_graph_lists_every_file_and_the_links_between_them(app_db: Database) -> None:
    graph = file_graph(app_db)
    assert [p for p, _ in graph.files] == [
        "app/__init__.py",
        "app/db.py",
        "app/repo.py",
        "app/service.py",
        "tests/test_service.py",
    ]
    assert {lang for _, lang in graph.files} == {"python"}
    links = {(link.source, link.target): link for link in graph.links}
    assert set(links) == {
        ("app/__init__.py", "app/db.py"),
        ("app/repo.py", "app/db.py"),
        ("app/service.py", "app/__init__.py"),
        ("app/service.py", "app/db.py"),
        ("app/service.py", "app/repo.py"),
        ("tests/test_service.py", "app/service.py"),
    }
    tests = links[("tests/test_service.py", "app/service.py")]
    assert tests.types == ("calls", "imports")
    assert tests.count == 5  # the module, two names from it, two calls
    # The name-only guess (unknown() -> thing.save) is no dependency.
    assert all(link.source != link.target for link in graph.links)


def test_file_graph_of_an_empty_database(db: Database) -> None:
    assert file_graph(db) == FileGraph((), ())


def test_callees_follow_calls_forward_to_depth(app_db: Database) -> None:
    target, direct = callees(app_db, "handle", depth=1)
    assert target.id == "app/service.py::handle"
    assert {(c.entity.id, c.depth) for c in direct} == {
        ("app/repo.py::Repo.__init__", 1),  # Repo() runs the constructor
        ("app/repo.py::Repo.save", 1),
    }
    _, deeper = callees(app_db, "handle", depth=3)
    found = {c.entity.id: c for c in deeper}
    assert found["app/db.py::Database.query"].depth == 2
    assert found["app/db.py::Database.query"].via == "app/repo.py::Repo.save"
    assert found["app/db.py::Database.query"].line == 9  # repo.py:9, self.db.query(item)
    assert found["app/db.py::get_database"].depth == 2
    assert found["app/db.py::Database.__init__"].depth == 3


def test_a_class_calls_through_its_methods(app_db: Database) -> None:
    _, found = callees(app_db, "Repo", depth=1)
    assert {c.entity.id for c in found} == {
        "app/db.py::get_database",
        "app/db.py::Database.query",
    }


def test_callees_are_recorded_and_check_depth(app_db: Database) -> None:
    queries = table_of(GraphQuery)

    def count() -> int:
        return int(
            app_db.read(
                lambda c: c.execute(
                    select(func.count()).where(queries.c.query_type == "callees")
                ).scalar_one()
            )
        )

    callees(app_db, "health")
    callees(app_db, "health", record=False)
    assert count() == 1
    with pytest.raises(InvalidValueError, match="depth"):
        callees(app_db, "health", depth=0)
