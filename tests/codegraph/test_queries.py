"""Queries on the fixture application of conftest.APP_FILES, whose call graph is:

- ``Repo.__init__`` (repo.py:6) and ``health`` (service.py:11) call ``get_database``;
- ``Repo.save`` (repo.py:9, through ``self.db``) and ``health`` call ``Database.query``;
- ``handle`` calls ``Repo()`` (service.py:6) and ``repo.save`` (service.py:7);
  ``CachedRepo.save`` calls ``super().save`` (repo.py:14); ``unknown`` calls ``thing.save``
  on an unknown object (a name-only candidate);
- the tests call ``handle`` and ``health``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from kgraph.codegraph import files_in_blast_radius, has_graph
from kgraph.codegraph.query import (
    blast_radius,
    exports,
    find_entities,
    what_calls,
    what_depends_on,
)
from kgraph.codegraph.records import AmbiguousNameError, is_test_path
from kgraph.codegraph.stats import graph_summary
from kgraph.db import Database
from kgraph.db.models import GraphQuery, table_of
from kgraph.errors import InvalidValueError, NotFoundError
from tests.codegraph.conftest import write_tree


@pytest.fixture
def app_db(db: Database, app_repo: Path, parse: Callable[..., object]) -> Database:
    parse(app_repo)
    return db


def _callers(db: Database, name: str, **kwargs: bool) -> set[tuple[str, int | None]]:
    _target, callers = what_calls(db, name, **kwargs)
    return {(c.caller.id, c.line) for c in callers}


def test_what_calls_gives_callers_with_lines(app_db: Database) -> None:
    assert _callers(app_db, "get_database") == {
        ("app/repo.py::Repo.__init__", 6),
        ("app/service.py::health", 11),
    }
    assert _callers(app_db, "Database.query") == {
        ("app/repo.py::Repo.save", 9),
        ("app/service.py::health", 11),
    }


def test_what_calls_a_class_means_its_constructor(app_db: Database) -> None:
    assert _callers(app_db, "Repo") == {("app/service.py::handle", 6)}
    assert _callers(app_db, "Database") == {("app/db.py::get_database", 10)}


def test_name_forms_all_resolve_to_the_same_entity(app_db: Database) -> None:
    for name in ("Repo.save", "app.repo.Repo.save", "app/repo.py::Repo.save"):
        target, _ = what_calls(app_db, name)
        assert target.id == "app/repo.py::Repo.save"


def test_unresolved_candidates_only_on_request(app_db: Database) -> None:
    resolved = {("app/service.py::handle", 7), ("app/repo.py::CachedRepo.save", 14)}
    assert _callers(app_db, "Repo.save") == resolved
    with_candidates = _callers(app_db, "Repo.save", include_unresolved=True)
    assert with_candidates == resolved | {("app/service.py::unknown", 15)}
    _target, callers = what_calls(app_db, "Repo.save", include_unresolved=True)
    unknown = next(c for c in callers if c.caller.name == "unknown")
    assert (unknown.resolution, unknown.confidence) == ("name-only", 0.2)


def test_ambiguous_name_lists_candidates(app_db: Database) -> None:
    with pytest.raises(AmbiguousNameError) as caught:
        what_calls(app_db, "save")
    assert {c.id for c in caught.value.candidates} == {
        "app/repo.py::Repo.save",
        "app/repo.py::CachedRepo.save",
    }


def test_unknown_name_is_not_found(app_db: Database) -> None:
    with pytest.raises(NotFoundError):
        what_calls(app_db, "no_such_function")


def _depths(db: Database, name: str, depth: int, **kwargs: bool) -> dict[str, int]:
    result = blast_radius(db, name, depth=depth, **kwargs)
    return {i.entity.id: i.depth for i in result.impacts}


def test_blast_radius_depths(app_db: Database) -> None:
    assert _depths(app_db, "Database.query", 2) == {
        "app/repo.py::Repo.save": 1,
        "app/service.py::health": 1,
        "app/service.py::handle": 2,
        "app/repo.py::CachedRepo.save": 2,
        "tests/test_service.py::test_health": 2,
        "tests/test_service.py": 2,  # imports health
    }
    deeper = _depths(app_db, "Database.query", 3)
    assert deeper["tests/test_service.py::test_handle"] == 3
    assert _depths(app_db, "Database.query", 1) == {
        "app/repo.py::Repo.save": 1,
        "app/service.py::health": 1,
    }


def test_blast_radius_of_a_class_includes_subclasses_and_method_callers(app_db: Database) -> None:
    assert _depths(app_db, "Repo", 1) == {
        "app/service.py": 1,  # from app.repo import Repo
        "app/service.py::handle": 1,
        "app/repo.py::CachedRepo": 1,  # extends
        "app/repo.py::CachedRepo.save": 1,  # super().save()
    }


def test_blast_radius_groups_files_and_tests_apart(app_db: Database) -> None:
    result = blast_radius(app_db, "Database.query", depth=3)
    assert set(result.by_file(tests=False)) == {"app/repo.py", "app/service.py"}
    assert set(result.by_file(tests=True)) == {"tests/test_service.py"}
    data = result.to_dict()
    assert set(data["tests"]) == {"tests/test_service.py"}
    health = next(i for i in data["files"]["app/service.py"] if i["entity"]["name"] == "health")
    assert (health["via_type"], health["line"], health["via"]) == (
        "calls",
        11,
        "app/db.py::Database.query",
    )


def test_blast_radius_unresolved_candidates_are_opt_in(app_db: Database) -> None:
    assert "app/service.py::unknown" not in _depths(app_db, "Repo.save", 1)
    assert _depths(app_db, "Repo.save", 1, include_unresolved=True)["app/service.py::unknown"] == 1


def test_find_exact_then_prefix_then_fuzzy(app_db: Database) -> None:
    kind, found = find_entities(app_db, "Repo")
    assert (kind, {e.id for e in found}) == ("exact", {"app/repo.py::Repo"})
    kind, found = find_entities(app_db, "CachedR")
    assert (kind, found[0].id) == ("prefix", "app/repo.py::CachedRepo")
    kind, found = find_entities(app_db, "get_databse")
    assert (kind, {e.id for e in found}) == ("fuzzy", {"app/db.py::get_database"})
    assert find_entities(app_db, "zzzzqqq") == ("none", [])


@pytest.mark.parametrize("name", ["", "   ", "\t"])
def test_a_blank_name_is_a_bad_value_not_every_entity(app_db: Database, name: str) -> None:
    for query in (find_entities, what_calls, blast_radius):
        with pytest.raises(InvalidValueError, match="a name is required"):
            query(app_db, name)
    kind, found = find_entities(app_db, "  Repo ")  # blanks around a name are not part of it
    assert (kind, [e.id for e in found]) == ("exact", ["app/repo.py::Repo"])


def test_exports_defined_and_reexported(app_db: Database) -> None:
    defined = {r["entity"]["id"] for r in exports(app_db, "app/db.py")}
    assert defined == {"app/db.py::Database", "app/db.py::get_database"}
    reexported = exports(app_db, "app/__init__.py")
    assert [(r["kind"], r["entity"]["id"]) for r in reexported] == [
        ("re-export", "app/db.py::get_database")
    ]
    with pytest.raises(NotFoundError):
        exports(app_db, "app/missing.py")


def test_exports_lists_reexported_variables(
    db: Database, tmp_path: Path, parse: Callable[..., object]
) -> None:
    repo = write_tree(
        tmp_path / "lib",
        {
            "pkg/__init__.py": (
                "from .version import __version__\nfrom .client import *\n"
                "__all__ = ['__version__', 'DEFAULT', 'Client']\n"
            ),
            "pkg/version.py": "__version__ = '1.0'\n",
            "pkg/client.py": (
                "__all__ = ['DEFAULT', 'Client']\n\n\nclass Default:\n    pass\n\n\n"
                "DEFAULT = Default()\n\n\nclass Client:\n    pass\n"
            ),
        },
    )
    parse(repo)
    found = {(r["kind"], r["entity"]["id"]) for r in exports(db, "pkg/__init__.py")}
    assert found == {
        ("re-export", "pkg/version.py::__version__"),
        ("re-export", "pkg/client.py::DEFAULT"),
        ("re-export", "pkg/client.py::Client"),
    }


def test_what_depends_on_with_depth(app_db: Database) -> None:
    direct = {d.path: d for d in what_depends_on(app_db, "app/db.py")}
    assert set(direct) == {"app/__init__.py", "app/repo.py", "app/service.py"}
    assert {e[0] for e in direct["app/repo.py"].edges} == {"imports", "calls"}
    two = {d.path: d.depth for d in what_depends_on(app_db, "app/db.py", depth=2)}
    assert two == {
        "app/__init__.py": 1,
        "app/repo.py": 1,
        "app/service.py": 1,
        "tests/test_service.py": 2,
    }


def test_files_in_blast_radius_contract(app_db: Database, db: Database) -> None:
    assert has_graph(app_db)
    assert files_in_blast_radius(app_db, ["app/db.py"], depth=2) == {
        "app/__init__.py": 1,
        "app/repo.py": 1,
        "app/service.py": 1,
        "tests/test_service.py": 2,
    }
    assert files_in_blast_radius(app_db, ["./app/repo.py"], depth=1) == {"app/service.py": 1}
    assert files_in_blast_radius(app_db, ["app/db.py"], depth=0) == {}
    assert files_in_blast_radius(app_db, ["not/parsed.py"]) == {}


def test_has_graph_is_false_on_an_empty_database(db: Database) -> None:
    assert not has_graph(db)
    assert files_in_blast_radius(db, ["a.py"]) == {}


def test_summary_counts(app_db: Database) -> None:
    summary = graph_summary(app_db)
    assert summary["files"] == 5
    assert summary["languages"] == {"python": 5}
    assert summary["entities"]["class"] == 3
    assert summary["call_resolution"]["name-only"] >= 1


def test_every_query_is_recorded(app_db: Database) -> None:
    queries = table_of(GraphQuery)

    def count() -> int:
        return int(
            app_db.read(lambda c: c.execute(select(func.count()).select_from(queries)).scalar_one())
        )

    before = count()
    what_calls(app_db, "get_database")
    blast_radius(app_db, "get_database", depth=2)
    find_entities(app_db, "Repo")
    exports(app_db, "app/db.py")
    what_depends_on(app_db, "app/db.py")
    graph_summary(app_db)
    assert count() == before + 6
    rows = app_db.read(
        lambda c: c.execute(
            select(queries.c.query_type, queries.c.query_params, queries.c.result_count)
            .order_by(queries.c.id.desc())
            .limit(6)
        ).all()
    )
    assert [r.query_type for r in rows][::-1] == [
        "what-calls",
        "blast-radius",
        "find",
        "exports",
        "what-depends-on",
        "summary",
    ]
    blast = rows[4]
    assert blast.query_params == {"name": "get_database", "depth": 2, "include_unresolved": False}
    assert blast.result_count > 0


def test_test_paths() -> None:
    for path in (
        "tests/test_a.py",
        "pkg/tests/x.py",
        "a/test_b.py",
        "b_test.py",
        "src/x.test.ts",
        "src/__tests__/y.js",
        "conftest.py",
    ):
        assert is_test_path(path), path
    for path in ("app/testing.py", "src/contest.py", "latest.py"):
        assert not is_test_path(path), path
