"""Incremental parsing: unchanged files are skipped, changed/added/deleted files handled, and
files that depend on a changed interface (importers, subclasses) are re-resolved."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from kgraph.codegraph import store, workers
from kgraph.codegraph.indexer import ParseReport, parse_repository
from kgraph.codegraph.query import what_calls
from kgraph.db import Database, open_database
from kgraph.db.models import GraphFile, GraphRelationship, table_of
from tests.codegraph.conftest import write_tree

FILES = table_of(GraphFile)
EDGES = table_of(GraphRelationship)
Parse = Callable[..., ParseReport]


def _edges(db: Database) -> set[tuple[str, str, str]]:
    rows = db.read(
        lambda c: c.execute(select(EDGES.c.from_entity, EDGES.c.to_entity, EDGES.c.type)).all()
    )
    return {tuple(r) for r in rows}  # type: ignore[misc]


def _callers(db: Database, name: str) -> set[str]:
    return {c.caller.id for c in what_calls(db, name, record=False)[1]}


def test_no_change_parses_and_resolves_nothing(db: Database, app_repo: Path, parse: Parse) -> None:
    first = parse(app_repo)
    assert (first.added, first.resolved) == (5, 5)
    edges = _edges(db)
    again = parse(app_repo)
    assert (again.added, again.changed, again.deleted, again.resolved) == (0, 0, 0, 0)
    assert again.unchanged == 5
    assert _edges(db) == edges


def test_body_edit_re_resolves_only_that_file(db: Database, app_repo: Path, parse: Parse) -> None:
    parse(app_repo)
    db_file = app_repo / "app/db.py"
    db_file.write_text(db_file.read_text().replace('"sqlite://"', '"sqlite:///x.db"'))
    report = parse(app_repo)
    assert (report.changed, report.resolved) == (1, 1)


def test_deps_on_reads_what_deps_of_holds(db: Database, app_repo: Path, parse: Parse) -> None:
    """The deps an incremental parse tests are extracted by the database for plain paths;
    a path a JSON path cannot name verbatim reads the whole deps instead, with one answer."""
    parse(app_repo)
    whole = db.read(store.deps_of)
    for changed in (["app/db.py", "app/repo.py"], ["app/db.py", 'odd "name".py']):
        part = db.read(lambda c, changed=changed: store.deps_on(c, changed))
        assert part.keys() == whole.keys()
        for path, deps in part.items():
            for changed_path in changed:
                assert deps["files"].get(changed_path) == whole[path]["files"].get(changed_path)
            for column in ("missing", "pulled", "sites"):
                assert deps[column] == whole[path][column]
    assert db.read(lambda c: store.deps_on(c, ["app/db.py"]))["app/repo.py"]["files"] == {
        "app/db.py": ["", "Database", "get_database"]
    }


def test_interface_change_of_a_non_ascii_module_re_resolves_dependents(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    """A path no JSON path names verbatim (an escaped key) still finds its readers."""
    repo = write_tree(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/café.py": "def brew():\n    return 1\n",
            "main.py": "from pkg.café import brew\n\n\ndef run():\n    return brew()\n",
        },
    )
    parse(repo)
    assert ("main.py::run", "pkg/café.py::brew", "calls") in _edges(db)
    (repo / "pkg/café.py").write_text("def pour():\n    return 1\n")
    report = parse(repo)
    assert (report.changed, report.resolved) == (1, 2)  # main.py read brew: re-resolved
    assert not any(edge[1] == "pkg/café.py::brew" for edge in _edges(db))


def test_interface_change_re_resolves_dependents(
    db: Database, app_repo: Path, parse: Parse
) -> None:
    parse(app_repo)
    assert ("app/repo.py::Repo.save", "app/db.py::Database.query", "calls") in _edges(db)
    db_file = app_repo / "app/db.py"
    db_file.write_text(db_file.read_text().replace("def query(", "def execute("))
    report = parse(app_repo)
    # db.py itself, and the files whose resolution read `Database` in it: repo.py
    # (self.db.query) and service.py (get_database().query); __init__ only re-exports
    # get_database, which did not change.
    assert report.changed == 1
    assert report.resolved == 3
    edges = _edges(db)
    assert not any(target == "app/db.py::Database.query" for _s, target, _t in edges)
    assert _callers(db, "Database.execute") == set()  # callers still call .query()
    (app_repo / "app/repo.py").write_text(
        (app_repo / "app/repo.py").read_text().replace(".query(", ".execute(")
    )
    parse(app_repo)
    assert _callers(db, "Database.execute") == {"app/repo.py::Repo.save"}


def test_only_files_reading_a_changed_name_are_re_resolved(
    db: Database, app_repo: Path, parse: Parse
) -> None:
    service = app_repo / "app/service.py"
    service.write_text(
        service.read_text() + "\n\ndef later():\n"
        "    from app.db import reconnect\n    return reconnect()\n"
    )
    parse(app_repo)
    assert _callers(db, "get_database") == {"app/repo.py::Repo.__init__", "app/service.py::health"}
    db_file = app_repo / "app/db.py"
    db_file.write_text(db_file.read_text() + "\n\ndef reconnect():\n    return None\n")
    report = parse(app_repo)
    # A new name: only service.py had looked it up (and not found it).
    assert (report.changed, report.resolved) == (1, 2)
    assert _callers(db, "reconnect") == {"app/service.py::later"}


def test_subclass_is_re_resolved_when_its_base_changes(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    repo = write_tree(
        tmp_path / "r",
        {
            "base.py": "class Base:\n    def helper(self):\n        return 1\n",
            "child.py": (
                "from base import Base\n\n\nclass Child(Base):\n"
                "    def run(self):\n        return self.helper()\n"
            ),
        },
    )
    parse(repo)
    assert _callers(db, "Base.helper") == {"child.py::Child.run"}
    (repo / "base.py").write_text(
        "class Base:\n    def other(self):\n        return 1\n\n\n"
        "class Mixin:\n    def helper(self):\n        return 2\n"
    )
    (repo / "child.py").write_text(
        (repo / "child.py")
        .read_text()
        .replace("from base import Base", "from base import Base, Mixin")
        .replace("class Child(Base)", "class Child(Mixin, Base)")
    )
    parse(repo)
    assert _callers(db, "Mixin.helper") == {"child.py::Child.run"}


def test_added_file_satisfies_a_missing_import(db: Database, app_repo: Path, parse: Parse) -> None:
    service = app_repo / "app/service.py"
    service.write_text(
        service.read_text() + "\n\ndef later():\n"
        "    from app.extra import helper\n    return helper()\n"
    )
    parse(app_repo)
    # Missing from a package of the repository: not an external module, a name-only guess.
    assert ("app/service.py::later", "<unresolved>::helper", "calls") in _edges(db)
    write_tree(app_repo, {"app/extra.py": "def helper():\n    return 1\n"})
    report = parse(app_repo)
    assert report.added == 1
    assert _callers(db, "app/extra.py::helper") == {"app/service.py::later"}


def test_every_file_reading_through_a_missing_import_is_re_resolved(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    # Both files reach `thing` through the package, whose import of it finds no file: the
    # second one reuses the first one's cached evaluation, and must still learn of the miss.
    repo = write_tree(
        tmp_path / "miss",
        {
            "pkg/__init__.py": "from pkg.gone import thing\n",
            "a.py": "from pkg import thing\n\n\ndef fa():\n    return thing()\n",
            "b.py": "from pkg import thing\n\n\ndef fb():\n    return thing()\n",
        },
    )
    parse(repo)
    missing = db.read(lambda c: dict(c.execute(select(FILES.c.path, FILES.c.missing)).all()))
    assert all("pkg.gone" in missing[path] for path in ("a.py", "b.py"))
    write_tree(repo, {"pkg/gone.py": "def thing():\n    return 1\n"})
    report = parse(repo)
    assert report.added == 1
    assert _callers(db, "pkg/gone.py::thing") == {"a.py::fa", "b.py::fb"}


def test_deleted_file_is_removed_and_dependents_re_resolved(
    db: Database, app_repo: Path, parse: Parse
) -> None:
    parse(app_repo)
    (app_repo / "tests/test_service.py").unlink()
    report = parse(app_repo)
    assert report.deleted == 1
    assert not any("tests/test_service.py" in (s + t) for s, t, _ in _edges(db))
    (app_repo / "app/db.py").unlink()
    report = parse(app_repo)
    assert report.deleted == 1
    assert report.resolved == 3  # __init__, repo and service read db.py
    assert not any(t.startswith("app/db.py") for _s, t, _ in _edges(db))
    paths = db.read(lambda c: c.execute(select(FILES.c.path)).scalars().all())
    assert "app/db.py" not in paths


def test_parsing_a_subfolder_leaves_the_rest(db: Database, app_repo: Path, parse: Parse) -> None:
    parse(app_repo)
    (app_repo / "tests/test_service.py").unlink()
    report = parse(app_repo, app_repo / "app")
    assert report.deleted == 0
    assert report.scanned == 4


def test_stale_files_from_an_interrupted_run_are_finished(
    db: Database, app_repo: Path, parse: Parse
) -> None:
    parse(app_repo)
    db.write(
        lambda c: c.execute(update(FILES).where(FILES.c.path == "app/repo.py").values(stale=True))
    )
    db.write(lambda c: c.execute(EDGES.delete().where(EDGES.c.file_path == "app/repo.py")))
    report = parse(app_repo)
    assert report.resolved == 1
    assert _callers(db, "get_database") == {"app/repo.py::Repo.__init__", "app/service.py::health"}


def test_force_reparses_everything(db: Database, app_repo: Path, parse: Parse) -> None:
    parse(app_repo)
    report = parse(app_repo, force=True)
    assert (report.changed, report.resolved) == (5, 5)


def test_worker_processes_give_the_same_graph(
    db: Database, tmp_path: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, Any] = {
        f"pkg/m{i}.py": (
            f"from pkg.m{i - 1} import f{i - 1}\n\n\ndef f{i}():\n    return f{i - 1}()\n"
        )
        for i in range(1, 30)
    }
    files["pkg/__init__.py"] = ""
    files["pkg/m0.py"] = "def f0():\n    return len([])\n"
    repo = write_tree(tmp_path / "many", files)
    parse(repo, jobs=1)
    single = _edges(db)
    monkeypatch.setattr(workers, "PARSE_INLINE_LIMIT", 1)
    monkeypatch.setattr(workers, "RESOLVE_INLINE_LIMIT", 1)
    monkeypatch.setattr(workers, "BATCH", 4)
    report = parse(repo, jobs=2, force=True)
    assert report.resolved == 31
    assert _edges(db) == single
    assert _callers(db, "f0") == {"pkg/m1.py::f1"}


def _edge_rows(db: Database) -> list[tuple[Any, ...]]:
    """Every stored edge, duplicates kept (nothing in the schema forbids them)."""
    rows = db.read(
        lambda c: c.execute(
            select(
                EDGES.c.from_entity,
                EDGES.c.to_entity,
                EDGES.c.type,
                EDGES.c.file_path,
                EDGES.c.to_file,
                EDGES.c.line_number,
                EDGES.c.confidence,
                EDGES.c.resolution,
            )
        ).all()
    )
    return sorted(tuple(r) for r in rows)


def test_incremental_runs_store_what_a_cold_parse_does_once(
    db: Database, app_repo: Path, parse: Parse, tmp_path: Path
) -> None:
    parse(app_repo)
    db_file, service = app_repo / "app/db.py", app_repo / "app/service.py"
    edits = [
        lambda: db_file.write_text(db_file.read_text() + "\n\ndef extra():\n    return 1\n"),
        lambda: db_file.write_text(db_file.read_text().replace("def query(", "def execute(")),
        lambda: service.write_text(service.read_text() + "\nfrom app.db import extra\n"),
        lambda: (app_repo / "app/repo.py").unlink(),
    ]
    for edit in edits:
        edit()
        parse(app_repo)
        parse(app_repo, force=True)  # every file's rows replaced over existing ones
        stored = _edge_rows(db)
        assert len(stored) == len(set(stored))
        cold = open_database(f"sqlite:///{tmp_path / f'cold-{len(stored)}.db'}")
        try:
            parse_repository(cold, app_repo, root=app_repo, jobs=1)
            assert stored == _edge_rows(cold)
        finally:
            cold.close()
