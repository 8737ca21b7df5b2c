"""The driver-only database (kgraph.db.direct): opened only when up to date, one
transaction per call, rolled back on error, retried on a lock, failures in one line."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from kgraph import checkpoint
from kgraph.db import Database, DirectDatabase, open_database, open_direct
from kgraph.errors import DatabaseError, NotFoundError


@pytest.fixture
def direct(db: Database) -> Any:
    opened = open_direct(db.url)
    assert isinstance(opened, DirectDatabase)
    yield opened
    opened.close()


def test_an_up_to_date_database_opens_on_its_driver(db: Database, direct: DirectDatabase) -> None:
    assert direct.dialect == db.dialect
    assert direct.where == db.where


def test_a_write_commits_and_both_databases_read_the_same_records(
    db: Database, direct: DirectDatabase
) -> None:
    wf = checkpoint.create_workflow(direct, 5, "feat/5", worktree="/wt")
    checkpoint.log_action(direct, wf.id, "plan", "success", {"files": ["a.py"]})
    checkpoint.log_commit(db, wf.id, "abc", "feat: x")
    assert checkpoint.get_workflow(db, wf.id) == checkpoint.get_workflow(direct, wf.id)
    assert checkpoint.find_workflow(direct, 5) == checkpoint.find_workflow(db, 5)


def test_an_error_inside_rolls_the_whole_transaction_back(direct: DirectDatabase) -> None:
    wf = checkpoint.create_workflow(direct, 6, "b")

    def half_then_fail(conn: Any) -> None:
        conn.execute("UPDATE workflows SET phase = 'review' WHERE id = ?", (wf.id,))
        raise NotFoundError("stop")

    with pytest.raises(NotFoundError):
        direct.write_raw(half_then_fail)
    assert checkpoint.get_workflow(direct, wf.id).phase == "research"
    assert checkpoint.set_phase(direct, wf.id, "implement").phase == "implement"


def test_a_database_failure_is_the_engines_one_line(db: Database, direct: DirectDatabase) -> None:
    def bad(conn: Any) -> Any:
        return conn.execute("SELECT * FROM no_such_table").fetchall()

    with pytest.raises(DatabaseError) as engine:
        db.read_raw(bad)
    with pytest.raises(DatabaseError) as caught:
        direct.read_raw(bad)
    assert str(caught.value) == str(engine.value)
    assert "no_such_table" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.sqlite_only
def test_a_writer_waits_for_another_and_then_writes(db: Database, direct: DirectDatabase) -> None:
    """Another process holds the write lock for a while: the write waits (busy_timeout,
    then kgraph.db.retry) and is stored, not dropped."""
    wf = checkpoint.create_workflow(direct, 7, "b")
    assert db.path is not None
    other = sqlite3.connect(db.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    record = checkpoint.log_action(direct, wf.id, "waited", "success")
    release.join()
    other.close()
    assert [a.action for a in record.actions] == ["waited"]


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "state", ["missing", "empty", "not sqlite", "older", "newer", "no version"]
)
def test_anything_but_an_up_to_date_file_is_left_to_the_engine(tmp_path: Path, state: str) -> None:
    path = tmp_path / "k.db"
    if state == "empty":
        path.write_bytes(b"")
    elif state == "not sqlite":
        path.write_text("not a database")
    elif state != "missing":
        open_database(f"sqlite:///{path}").close()
        with sqlite3.connect(path) as conn:
            if state == "no version":
                conn.execute("DROP TABLE alembic_version")
            else:
                conn.execute(
                    "UPDATE alembic_version SET version_num = ?",
                    ("0004" if state == "older" else "9999",),
                )
    assert open_direct(f"sqlite:///{path}") is None
    assert not (path.exists() and state == "missing")  # never creates one


@pytest.mark.sqlite_only
def test_a_file_this_process_cannot_write_is_left_to_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.db.test_open import deny_writes

    path = tmp_path / "k.db"
    open_database(f"sqlite:///{path}").close()
    deny_writes(monkeypatch, path)
    assert open_direct(f"sqlite:///{path}") is None


def test_an_in_memory_or_unknown_url_is_left_to_the_engine() -> None:
    assert open_direct("sqlite://") is None
    assert open_direct("mysql://u@localhost/k") is None
