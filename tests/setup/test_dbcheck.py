"""The doctor's database checks: intact, at this schema, writable; the hooks' local copy."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from kgraph.checkpoint import create_workflow
from kgraph.db import open_database
from kgraph.setup import dbcheck


def _project_db(root: Path, workflows: int = 300) -> Path:
    path = root / ".claude" / "execution-state.db"
    db = open_database(f"sqlite:///{path}")
    for issue in range(workflows):
        create_workflow(db, issue, f"feat/{issue}-" + "y" * 300)
    db.close()
    return path


def test_a_healthy_database_passes_quick_and_full_checks(tmp_repo: Path) -> None:
    _project_db(tmp_repo, 5)
    quick = dbcheck.check_database(tmp_repo)
    full = dbcheck.check_database(tmp_repo, full=True)
    assert quick.status == "ok" and "quick_check ok" in quick.detail
    assert full.status == "ok" and "integrity_check ok" in full.detail
    assert "no code graph (kgraph graph parse .)" in quick.detail


def test_the_database_check_says_how_much_code_graph_there_is(tmp_repo: Path) -> None:
    from kgraph.codegraph import parse_repository

    path = _project_db(tmp_repo, 1)
    (tmp_repo / "app.py").write_text("def load():\n    return 1\n")
    db = open_database(f"sqlite:///{path}")
    parse_repository(db, tmp_repo, root=tmp_repo)
    db.close()
    assert "a code graph of 1 files" in dbcheck.check_database(tmp_repo).detail


def test_the_database_check_says_when_candidates_wait_for_review(tmp_repo: Path) -> None:
    from dataclasses import replace

    from kgraph.knowledge.prepare import prepare_item
    from kgraph.knowledge.store import write_item

    path = _project_db(tmp_repo, 1)
    assert "candidate" not in dbcheck.check_database(tmp_repo).detail
    db = open_database(f"sqlite:///{path}")
    item = replace(prepare_item("`load` reads the file twice, so it is slow."), candidate=True)
    db.write(lambda conn: write_item(conn, item))
    db.close()
    detail = dbcheck.check_database(tmp_repo).detail
    assert "1 candidate(s) to review (kgraph knowledge review)" in detail


def test_doctor_promises_an_upgrade_only_when_a_copy_takes_it(tmp_repo: Path) -> None:
    import sqlite3

    path = tmp_repo / ".claude" / "execution-state.db"
    path.parent.mkdir(exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    foreign = dbcheck.check_database(tmp_repo)
    assert foreign.status == "fail" and "is not a kgraph database" in foreign.detail
    path.unlink()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE entities (id TEXT)")  # a pre-release layout
    old = dbcheck.check_database(tmp_repo)
    assert old.status == "fail" and "no schema version" in old.detail
    path.unlink()
    path.touch()  # empty: the first use creates the schema
    empty = dbcheck.check_database(tmp_repo)
    assert empty.status == "warn" and "upgraded on next use (tried on a copy)" in empty.detail


def test_damage_inside_a_table_is_found(tmp_repo: Path) -> None:
    path = _project_db(tmp_repo)
    pages = path.stat().st_size // 4096
    with path.open("r+b") as handle:  # one page deep inside the workflows table
        handle.seek((pages - 3) * 4096)
        handle.write(b"\xff" * 4096)
    check = dbcheck.check_database(tmp_repo)
    assert check.status == "fail"
    assert "quick_check found" in check.detail or "is damaged" in check.detail


def test_a_read_only_folder_fails_the_writable_check(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_repo / ".claude"
    folder.mkdir()
    real = os.access
    monkeypatch.setattr(
        dbcheck.os,
        "access",
        lambda p, mode: False if Path(p) == folder and mode & os.W_OK else real(p, mode),
    )
    check = dbcheck.check_writable(tmp_repo)
    assert check.status == "fail" and "no database can be created" in check.detail
    monkeypatch.setattr(dbcheck.os, "access", real)
    assert dbcheck.check_writable(tmp_repo).status == "ok"


def test_on_a_server_doctor_tells_how_old_the_hooks_copy_is(
    tmp_repo: Path, pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.db import open_database
    from kgraph.db.location import resolve_database_url
    from kgraph.db.mirror_sync import refresh_mirror
    from kgraph.runtime.state import ensure_state_dir

    assert dbcheck.check_local_copy(tmp_repo) is None  # a file database: no copy
    monkeypatch.setenv("KGRAPH_DB", pg_server.fresh_url())
    db = open_database(resolve_database_url(cwd=tmp_repo))
    none_yet = dbcheck.check_local_copy(tmp_repo)
    assert none_yet is not None and none_yet.status == "warn" and "none yet" in none_yet.detail
    refresh_mirror(db, ensure_state_dir(tmp_repo))
    db.close()
    made = dbcheck.check_local_copy(tmp_repo)
    assert made is not None and made.status == "ok"
    # How old, in whole seconds: a slow machine may pass a second boundary in between.
    assert re.search(r"refreshed [0-9]+ s ago", made.detail), made.detail
