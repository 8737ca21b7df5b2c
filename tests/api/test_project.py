"""kgraph.open() and the Project: each method against a real temp project (fake embedder)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import kgraph
from kgraph.api import Project
from kgraph.db import open_database
from kgraph.errors import InvalidValueError, SchemaTooNewError
from tests.api.sample import make_repo


def test_open_finds_the_project_of_a_directory_a_file_or_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    default = repo / ".claude" / "execution-state.db"
    with kgraph.open(repo / "app") as kg:
        assert kg.root == repo
        assert kg.db.path == default
    monkeypatch.chdir(repo / "app")
    with kgraph.open() as kg:
        assert kg.db.path == default
    elsewhere = tmp_path / "other.db"
    with kgraph.open(elsewhere) as kg:
        assert kg.db.path == elsewhere
    with kgraph.open(f"sqlite:///{elsewhere}") as kg:
        assert kg.db.path == elsewhere


def test_an_explicit_directory_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path)
    monkeypatch.setenv("KGRAPH_DB", str(tmp_path / "env.db"))
    with kgraph.open(repo) as kg:
        assert kg.db.path == repo / ".claude" / "execution-state.db"


def test_learn_get_and_search(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    item = kg.get(ids["open_store"][:8])  # a prefix works
    assert item.type == "Mistake"
    assert item.files == ("app/repo.py",)
    result = kg.search("engine deadlocks")
    assert result.mode == "hybrid"
    assert result.hits[0].item.id == ids["open_store"]
    assert len(result) == len(result.hits)
    again = kg.learn(item.content, type="Mistake", files=["app/repo.py"])
    assert not again.created and again.entity_id == item.id


def test_learn_redacts_secrets(sample: tuple[Project, dict[str, str]]) -> None:
    kg, _ids = sample
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    stored = kg.get(kg.learn(f"The deploy token is {token} for CI").entity_id)
    assert token not in stored.content


def test_query_and_related(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    about_repo = {i.id for i in kg.query(files=["app/repo.py"], file_areas=False)}
    assert about_repo == {ids["open_store"], ids["repo.save"]}
    start, near = kg.related(ids["open_store"], hops=2)
    assert start.id == ids["open_store"]
    assert ids["repo.save"] in {r.item.id for r in near}


@pytest.mark.sqlite_only  # a server has no data_version: refresh() always says "maybe"
def test_refresh_notices_other_writers_and_a_replaced_file(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, _ids = sample
    kg.refresh()
    assert kg.refresh() is False
    other = open_database(kg.db.url)
    from kgraph.knowledge import add_item

    add_item(other, "Written by another process about caching")
    other.close()
    assert kg.refresh() is True
    assert len(kg.search("caching")) == 1
    path = kg.db.path
    assert path is not None
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    fresh = open_database(kg.db.url)
    from kgraph.knowledge import add_item as add

    add(fresh, "Only in the new file: the cache is per process")
    fresh.close()
    assert kg.refresh() is True
    assert [h.item.content for h in kg.search("cache process")] == [
        "Only in the new file: the cache is per process"
    ]


@pytest.mark.sqlite_only  # writes the file (a server's newer schema: tests/db/test_postgres.py)
def test_a_schema_written_by_a_newer_kgraph_is_an_error(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, _ids = sample
    kg.refresh()
    conn = sqlite3.connect(str(kg.db.path))
    conn.execute("UPDATE alembic_version SET version_num = '9999'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNewError, match="restart"):
        kg.refresh()


def test_workflows_and_milestones(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    found = kg.workflows.find(15)
    assert found is not None and found.id == ids["workflow"]
    assert kg.workflows.for_branch("issue-15") == found
    kg.workflows.log_action(found.id, "ran the tests", "success")
    kg.workflows.log_commit(found.id, "abc123", "api: open")
    record = kg.workflows.set_phase(found.id, "review")
    assert (record.phase, len(record.actions), len(record.commits)) == ("review", 1, 1)
    with pytest.raises(InvalidValueError):
        kg.workflows.set_status(found.id, "sleeping")
    milestone = kg.milestones.create("v1")
    kg.milestones.add_workflow(milestone.id, found.id, wave=2)
    assert kg.milestones.get(milestone.id).workflows[0].wave_number == 2
    assert kg.milestones.find("v1") is not None


def test_code_graph_queries(sample: tuple[Project, dict[str, str]]) -> None:
    kg, _ids = sample
    assert kg.graph.available
    target, callers = kg.graph.what_calls("open_store")
    assert target.id == "app/repo.py::open_store"
    assert {c.caller.qualified_name for c in callers} == {"Repo.save", "Repo.load", "main"}
    radius = kg.graph.blast_radius("open_store", depth=3)
    assert "app/web.py" in radius.by_file(False)
    assert [e.id for e in kg.graph.find("open_store", exact=True)] == ["app/repo.py::open_store"]
    assert kg.graph.find("open_sto", exact=True) == []
    exported = {e.id: e for e in kg.graph.exports(str(kg.root / "app" / "repo.py"))}
    assert exported["app/repo.py::Repo"].entity is not None
    assert "app/cli.py" in {d.path for d in kg.graph.depends_on("app/repo.py")}
    assert kg.graph.dependent_files(["app/cli.py"]) == {"app/web.py": 1}


def test_embed_without_an_embedder_is_an_error(tmp_path: Path) -> None:
    with kgraph.open(tmp_path / "k.db", embedder=False) as kg, pytest.raises(InvalidValueError):
        kg.embed()
