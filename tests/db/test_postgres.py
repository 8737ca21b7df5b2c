"""PostgreSQL specifics: the layout the migrations make, upgrading in place, projects that
share a server without mixing, retries, and a server that cannot be reached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from alembic import command
from kgraph.codegraph.indexer import parse_repository
from kgraph.codegraph.query import blast_radius
from kgraph.db import open_database
from kgraph.db import postgres as pg
from kgraph.db.core import make_engine
from kgraph.db.migrate import alembic_config
from kgraph.db.project import normalise_remote, project_id, schema_name, split_project
from kgraph.db.retry import with_retry
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.errors import ConnectionLostError, DatabaseError, SchemaTooNewError
from kgraph.hooks.runner import run_hook
from kgraph.knowledge.query import list_items
from kgraph.knowledge.store import add_item
from tests.db.test_migrations import (
    EXPECTED_TABLES,
    callback_repo,
    check_0005_upgrade,
    summaries_as_0004_stored_them,
)
from tests.pgserver import PgServer


def test_a_fresh_project_has_every_table_and_a_full_text_index(pg_server: PgServer) -> None:
    db = open_database(pg_server.fresh_url())
    try:

        def layout(conn: object) -> tuple[set[str], dict[str, str], list[str], str]:
            run = conn.execute  # type: ignore[attr-defined]
            tables = {
                r[0]
                for r in run(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
                )
            }
            indexes = dict(
                run(
                    text(
                        "SELECT indexname, indexdef FROM pg_indexes "
                        "WHERE schemaname = current_schema()"
                    )
                ).all()
            )
            cascade = [
                r[0]
                for r in run(
                    text(
                        "SELECT confdeltype FROM pg_constraint "
                        "WHERE conrelid = 'actions'::regclass AND contype = 'f'"
                    )
                )
            ]
            return (
                tables,
                indexes,
                cascade,
                run(text("SELECT version_num FROM alembic_version")).scalar(),
            )

        tables, indexes, cascade, version = db.read(layout)
    finally:
        db.close()
    assert tables >= EXPECTED_TABLES and "entities_fts" not in tables
    assert "USING gin (search_vector)" in indexes["ix_entities_search_vector"]
    assert indexes["ix_graph_relationships_to_file"].endswith("WHERE (to_file IS NOT NULL)")
    assert "uq_graph_relationships_from_entity_to_entity_type" not in indexes  # 0003
    assert cascade == ["c"]
    assert version == HEAD_REVISION


def test_a_0001_project_with_a_code_graph_upgrades_in_place(pg_server: PgServer) -> None:
    url = pg_server.fresh_url()
    schema = pg.project_schema(url)
    engine = make_engine(url)
    with engine.begin() as conn:  # a project as the first release would have left it
        pg.prepare_schema(conn, schema)
        cfg = alembic_config(engine)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(
            text(
                "INSERT INTO graph_entities (id, type, name, qualified_name, file_path, "
                "line_number, exported) VALUES ('a.py::f', 'function', 'f', 'f', 'a.py', 1, true),"
                " ('a.py::g', 'function', 'g', 'g', 'a.py', 4, true),"
                " ('b.py::h', 'function', 'h', 'h', 'b.py', 3, true)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO graph_relationships (from_entity, to_entity, type, file_path, to_file,"
                " line_number, confidence, resolution) VALUES"
                " ('a.py::g', 'a.py::f', 'calls', 'a.py', 'a.py', 5, 1.0, 'local'),"
                " ('b.py::h', 'a.py::g', 'calls', 'b.py', 'a.py', 4, 1.0, 'import')"
            )
        )
    engine.dispose()

    db = open_database(url)  # upgrades 0001 -> head in one transaction, no copy to take
    try:
        radius = blast_radius(db, "f", depth=3, record=False)
        version = db.read(
            lambda c: c.execute(text("SELECT version_num FROM alembic_version")).scalar()
        )
    finally:
        db.close()
    assert [(i.entity.id, i.depth, i.line) for i in radius.impacts] == [
        ("a.py::g", 1, 5),
        ("b.py::h", 2, 4),
    ]
    assert version == HEAD_REVISION
    open_database(url).close()  # again: nothing to do


def test_a_0004_code_graph_keeps_its_summaries_and_call_site_keys(
    pg_server: PgServer, tmp_path: Path
) -> None:
    repo = callback_repo(tmp_path)
    url = pg_server.fresh_url()
    db = open_database(url)
    parse_repository(db, repo, root=repo)
    db.close()
    engine = make_engine(url)
    with engine.begin() as conn:
        cfg = alembic_config(engine)
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
        assert conn.execute(text("SELECT COUNT(summary) FROM graph_files")).scalar() == 0
        old = dict(conn.execute(text("SELECT path, deps -> 'sites' FROM graph_files")).all())
        as_before = "UPDATE graph_files SET summary = CAST(:s AS JSON), content_hash = :h"
        conn.execute(text(as_before + " WHERE path = :p"), summaries_as_0004_stored_them(repo))
    engine.dispose()

    db = open_database(url)  # upgrades to the head
    try:
        check_0005_upgrade(db, repo, old)
    finally:
        db.close()


def test_a_plain_postgresql_url_uses_psycopg(pg_server: PgServer) -> None:
    url = pg_server.fresh_url().replace("postgresql+psycopg://", "postgresql://")
    db = open_database(url)
    try:
        assert db.engine.dialect.driver == "psycopg"
    finally:
        db.close()


def test_a_project_newer_than_this_kgraph_is_refused(pg_server: PgServer) -> None:
    url = pg_server.fresh_url()
    db = open_database(url)
    db.write(lambda c: c.execute(text("UPDATE alembic_version SET version_num = '9999_x'")))
    db.close()
    with pytest.raises(SchemaTooNewError, match="upgrade kgraph"):
        open_database(url)


def test_projects_on_one_server_do_not_mix(pg_server: PgServer) -> None:
    first = open_database(pg_server.url(project="github.com/team/api"))
    second = open_database(pg_server.url(project="github.com/team/web"))
    try:
        add_item(first, "The API pins its pool size to 20 because the proxy caps connections")
        add_item(second, "The web app builds with vite; webpack configs are dead")
        assert [i.content[:7] for i in list_items(first)] == ["The API"]
        assert [i.content[:7] for i in list_items(second)] == ["The web"]
    finally:
        first.close()
        second.close()
    again = open_database(pg_server.url(project="github.com/team/api"))
    try:
        assert len(list_items(again)) == 1
    finally:
        again.close()


def test_clones_name_their_project_after_origin(tmp_path: Path, git: object) -> None:
    run = git  # type: ignore[assignment]
    for name, remote in (
        ("a", "git@github.com:Team/App.git"),
        ("b", "https://dev@github.com/team/app"),
    ):
        clone = tmp_path / name
        clone.mkdir()
        run(clone, "init", "-q")  # type: ignore[operator]
        run(clone, "remote", "add", "origin", remote)  # type: ignore[operator]
    assert project_id(tmp_path / "a", {}) == project_id(tmp_path / "b", {}) == "github.com/team/app"
    assert project_id(tmp_path / "a", {"KGRAPH_PROJECT": "mine"}) == "mine"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert project_id(plain, {}) == "plain"
    assert normalise_remote("ssh://git@host:2222/org/repo.git") == "host:2222/org/repo"
    assert split_project("postgresql://h/db?project=x&sslmode=require") == (
        "postgresql://h/db?sslmode=require",
        "x",
    )
    name = schema_name("github.com/team/app")
    assert name.startswith("kg_github_com_team_app_") and len(name) <= 63
    assert schema_name("x" * 300) != schema_name("x" * 299)


class _Conflict(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"conflict {sqlstate}")
        self.sqlstate = sqlstate


@pytest.mark.parametrize("state", ["40001", "40P01", "55P03"])
def test_serialization_failures_deadlocks_and_lock_timeouts_are_retried(state: str) -> None:
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise _Conflict(state)
        return "done"

    assert with_retry(flaky, sleep=lambda _s: None) == "done"
    assert len(attempts) == 3
    with pytest.raises(_Conflict):  # anything else is not retried
        with_retry(lambda: (_ for _ in ()).throw(_Conflict("23505")), sleep=lambda _s: None)


def test_an_unreachable_server_is_one_line_and_hooks_fail_open(
    tmp_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = f"postgresql+psycopg://kgraph@/kgraph?host={tmp_path}&port=5999&connect_timeout=2"
    with pytest.raises(DatabaseError) as raised:
        open_database(nowhere)
    assert "\n" not in str(raised.value) and "kgraph" in str(raised.value)
    monkeypatch.setenv("KGRAPH_DB", nowhere)
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    result = run_hook(
        "session-start",
        json.dumps({"session_id": "s", "cwd": str(tmp_repo)}).encode(),
    )
    if result.stdout:  # nothing to brief, or the one-time notice about the database
        assert "cannot reach the kgraph database server" in result.stdout


def test_a_server_password_never_reaches_a_command_line(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The capture worker gets a server URL through its environment: any user of the
    machine can list command lines."""
    from kgraph.runtime import spawn

    started: list[tuple[list[str], dict[str, str]]] = []

    class Recorder:
        pid = 4242

        def __init__(self, argv: list[str], **kwargs: object) -> None:
            started.append((argv, dict(kwargs["env"])))  # type: ignore[call-overload]

    monkeypatch.delenv("KGRAPH_HOOK_NO_SPAWN", raising=False)
    monkeypatch.setattr(spawn.subprocess, "Popen", Recorder)
    url = "postgresql+psycopg://kgraph:s3cret@db.internal/kgraph?project=team"
    assert spawn.spawn_worker(tmp_repo, url) == 4242
    ((argv, env),) = started
    assert not any("s3cret" in arg for arg in argv)
    assert env["KGRAPH_DB"] == url


def test_a_server_gone_inside_an_exclusive_block_is_one_clear_error(
    pg_server: PgServer,
) -> None:
    """A graph parse holds the project's lock on a connection of its own; the server ending
    every connection mid-parse gave "internal error: OperationalError"."""
    db = open_database(pg_server.fresh_url())
    lost = pytest.raises(ConnectionLostError, match="the server cannot be reached")
    with lost, db.exclusive("graph"):
        pg_server.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database()"
        )
        db.write(lambda conn: conn.execute(text("SELECT 1")))
    db.close()
