"""Migrations: fresh upgrade, drift between models and migrations, backups, version checks."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from alembic import command
from kgraph.codegraph import store
from kgraph.codegraph.indexer import parse_repository
from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.query import blast_radius
from kgraph.codegraph.summary_codec import content_hash
from kgraph.db import Database, open_database
from kgraph.db.fts import is_fts_object
from kgraph.db.migrate import alembic_config, migrations_dir
from kgraph.db.models import Base
from kgraph.db.schema_version import HEAD_REVISION
from kgraph.errors import DatabaseError, SchemaTooNewError
from tests.codegraph.conftest import write_tree

EXPECTED_TABLES = {
    "workflows",
    "actions",
    "commits",
    "milestones",
    "baselines",
    "milestone_workflows",
    "entities",
    "relationships",
    "graph_entities",
    "graph_relationships",
    "context_metrics",
    "graph_queries",
}


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_head_constant_matches_shipped_migrations(db) -> None:  # type: ignore[no-untyped-def]
    script = ScriptDirectory.from_config(alembic_config(db.engine))
    assert script.get_current_head() == HEAD_REVISION


@pytest.mark.sqlite_only  # PostgreSQL's layout: tests/db/test_postgres.py
def test_fresh_database_has_every_seed_table(db, db_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert _tables(db_path) >= EXPECTED_TABLES
    assert "entities_fts" in _tables(db_path)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (
            HEAD_REVISION,
        )
        fks = conn.execute("PRAGMA foreign_key_list(actions)").fetchall()
        # (id, seq, table, from, to, on_update, on_delete, match)
        assert [(fk[2], fk[3], fk[6]) for fk in fks] == [("workflows", "workflow_id", "CASCADE")]
        indexes = {r[1] for r in conn.execute("PRAGMA index_list(workflows)")}
        assert "ix_workflows_issue_number_status" in indexes


def test_models_and_migrations_do_not_drift(db) -> None:  # type: ignore[no-untyped-def]
    def include(obj, name, type_, reflected, compare_to):  # type: ignore[no-untyped-def]
        return not is_fts_object(name, type_)

    with db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": include}
        )
        diff = compare_metadata(context, Base.metadata)
    assert diff == []


def test_reopening_is_a_noop(db_path: Path) -> None:
    open_database(f"sqlite:///{db_path}").close()
    before = db_path.stat().st_mtime_ns
    open_database(f"sqlite:///{db_path}").close()
    assert not list(db_path.parent.glob("*.bak-*"))
    assert _tables(db_path) >= EXPECTED_TABLES
    assert db_path.stat().st_mtime_ns >= before


def test_another_application_s_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    with pytest.raises(DatabaseError, match=r"is not a kgraph database \(it holds notes\)"):
        open_database(f"sqlite:///{path}")
    assert _tables(path) == {"notes"}
    assert not list(tmp_path.glob("app.db.bak-*"))


def test_a_doctor_tries_an_upgrade_on_a_copy_before_promising_it(tmp_path: Path) -> None:
    from kgraph.db.core import try_upgrade

    good = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{good}")
    command.upgrade(alembic_config(engine), "0004")
    engine.dispose()
    assert try_upgrade(good) is None
    with sqlite3.connect(good) as conn:  # the file itself is not touched
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0004",)]
    bad = tmp_path / "pre.db"
    with sqlite3.connect(bad) as conn:
        conn.execute("CREATE TABLE entities (id TEXT)")  # kgraph's table, no version
    assert "no schema version" in (try_upgrade(bad) or "")


def test_database_newer_than_code_is_a_clear_error(db_path: Path) -> None:
    open_database(f"sqlite:///{db_path}").close()
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999_future'")
    with pytest.raises(SchemaTooNewError, match="upgrade kgraph"):
        open_database(f"sqlite:///{db_path}")


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello, not sqlite")
    with pytest.raises(DatabaseError, match="not a SQLite database"):
        open_database(f"sqlite:///{path}")


def test_opening_an_up_to_date_database_does_not_import_alembic(db_path: Path) -> None:
    open_database(f"sqlite:///{db_path}").close()
    code = (
        "import sys\n"
        "from kgraph.db import open_database\n"
        f"open_database({f'sqlite:///{db_path}'!r}).close()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('alembic', 'networkx', 'torch', 'sentence_transformers'))\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_migrations_found_in_source_tree() -> None:
    assert (migrations_dir() / "versions").is_dir()


def test_a_0001_database_with_a_code_graph_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    command.upgrade(alembic_config(engine), "0001")
    engine.dispose()
    with sqlite3.connect(path) as conn:  # a graph as the first release stored it
        conn.executemany(
            "INSERT INTO graph_entities (id, type, name, qualified_name, file_path, line_number,"
            " exported) VALUES (?, 'function', ?, ?, ?, ?, 1)",
            [
                ("a.py::f", "f", "f", "a.py", 1),
                ("a.py::g", "g", "g", "a.py", 4),
                ("b.py::h", "h", "h", "b.py", 3),
            ],
        )
        conn.executemany(
            "INSERT INTO graph_relationships (from_entity, to_entity, type, file_path, to_file,"
            " line_number, confidence, resolution) VALUES (?, ?, 'calls', ?, ?, ?, 1.0, ?)",
            [
                ("a.py::g", "a.py::f", "a.py", "a.py", 5, "local"),
                ("b.py::h", "a.py::g", "b.py", "a.py", 4, "import"),
            ],
        )

    db = open_database(f"sqlite:///{path}")
    radius = blast_radius(db, "f", depth=3, record=False)
    db.close()
    assert [(i.entity.id, i.depth, i.line) for i in radius.impacts] == [
        ("a.py::g", 1, 5),
        ("b.py::h", 2, 4),
    ]
    assert len(list(tmp_path.glob("old.db.bak-0001-*"))) == 1
    with sqlite3.connect(path) as conn:
        indexes = dict(
            conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE tbl_name = 'graph_relationships'"
            )
        )
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    assert "ix_graph_relationships_callers" in indexes  # 0002
    assert "ix_graph_relationships_to_entity_type" not in indexes
    assert "UNIQUE" not in indexes["graph_relationships"]  # 0003
    assert not any(name.startswith("sqlite_autoindex") for name in indexes)
    assert indexes["ix_graph_relationships_to_file"].endswith("WHERE to_file IS NOT NULL")
    assert version == HEAD_REVISION


def test_a_database_in_a_folder_with_a_percent_sign_is_created_and_upgraded(
    tmp_path: Path,
) -> None:
    # Alembic's options go through configparser interpolation, where "%" is special.
    path = tmp_path / "50% done" / "kgraph.db"
    path.parent.mkdir()
    open_database(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (
            HEAD_REVISION,
        )


def callback_repo(tmp_path: Path) -> Path:
    """A repository whose graph has call-site keys (``run(greet)`` passes a function)."""
    return write_tree(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/hooks.py": "def run(callback):\n    return callback()\n",
            "app/main.py": "from app.hooks import run\n\n\ndef greet():\n    return 1\n\n\n"
            "def main():\n    return run(greet)\n",
        },
    )


def summaries_as_0004_stored_them(repo: Path) -> list[dict[str, str]]:
    """UPDATE parameters (``p``, ``s``, ``h``) giving each file of ``repo`` the summary
    kgraph stored before 0005 (plain JSON) and its content hash: a downgrade leaves neither
    for summaries in the newer form."""
    return [
        {
            "p": file.relative_to(repo).as_posix(),
            "s": json.dumps(parse_python(file.read_bytes()), separators=(",", ":")),
            "h": content_hash(file.read_bytes()),
        }
        for file in sorted(repo.rglob("*.py"))
    ]


def check_0005_upgrade(db: Database, repo: Path, old_sites: dict[str, Any]) -> None:
    """After 0005, a graph parsed before it: its summaries load, its call-site keys are in
    their column, nothing is re-parsed, and an edit re-resolves the file and its callee's."""
    sites = db.read(lambda c: store.site_keys(c))
    assert old_sites["app/main.py"]  # run(greet): a call site with an argument
    assert sites == {path: keys or [] for path, keys in old_sites.items()}
    deps = db.read(lambda c: store.deps_of(c))
    assert deps.keys() == old_sites.keys()  # still resolved: their lists left deps whole
    assert deps["app/main.py"]["files"]["app/hooks.py"] == ["", "run"]
    assert [d["missing"] for d in deps.values()] == [[], [], []]
    assert set(db.read(lambda c: store.load_summaries(c, sorted(old_sites)))) == set(old_sites)
    assert parse_repository(db, repo, root=repo).resolved == 0
    main = repo / "app" / "main.py"
    main.write_text(main.read_text() + "\n\ndef other():\n    return run(main)\n")
    report = parse_repository(db, repo, root=repo)
    assert (report.changed, report.resolved) == (1, 2)


def test_a_0004_code_graph_keeps_its_summaries_and_call_site_keys(tmp_path: Path) -> None:
    """0005 moves the summaries out of graph_files and the call-site keys out of deps; a
    downgrade puts the keys back, and a summary it cannot put back (the newer form) has its
    file parsed again."""
    repo = callback_repo(tmp_path)
    path = tmp_path / "graph.db"
    db = open_database(f"sqlite:///{path}")
    parse_repository(db, repo, root=repo)
    db.close()
    engine = create_engine(f"sqlite:///{path}")
    command.downgrade(alembic_config(engine), "0004")
    engine.dispose()
    assert "graph_summaries" not in _tables(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute(
            "SELECT COUNT(summary), COUNT(NULLIF(content_hash, '')) FROM graph_files"
        ).fetchone() == (0, 0)
        rows = conn.execute("SELECT path, json_extract(deps, '$.sites') FROM graph_files")
        old = {p: json.loads(keys) if keys else None for p, keys in rows}
        conn.executemany(
            "UPDATE graph_files SET summary = :s, content_hash = :h WHERE path = :p",
            summaries_as_0004_stored_them(repo),
        )

    db = open_database(f"sqlite:///{path}")  # upgrades to the head
    try:
        check_0005_upgrade(db, repo, old)
    finally:
        db.close()
    with sqlite3.connect(path) as conn:
        assert "summary" not in {row[1] for row in conn.execute("PRAGMA table_info(graph_files)")}
