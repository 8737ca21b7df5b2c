"""``kgraph doctor``: intact and writable database, timings against installed timeouts."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from kgraph.checkpoint import create_workflow
from kgraph.db import open_database
from kgraph.setup import doctor
from kgraph.setup.install import install

COMMAND = ["/opt/kgraph/bin/kgraph"]


def _project_db(root: Path, workflows: int = 300) -> Path:
    path = root / ".claude" / "execution-state.db"
    db = open_database(f"sqlite:///{path}")
    for issue in range(workflows):
        create_workflow(db, issue, f"feat/{issue}-" + "y" * 300)
    db.close()
    return path


def test_a_healthy_database_passes_quick_and_full_checks(tmp_repo: Path) -> None:
    _project_db(tmp_repo, 5)
    quick = doctor.check_database(tmp_repo)
    full = doctor.check_database(tmp_repo, full=True)
    assert quick.status == "ok" and "quick_check ok" in quick.detail
    assert full.status == "ok" and "integrity_check ok" in full.detail


def test_doctor_promises_an_upgrade_only_when_a_copy_takes_it(tmp_repo: Path) -> None:
    import sqlite3

    path = tmp_repo / ".claude" / "execution-state.db"
    path.parent.mkdir(exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    foreign = doctor.check_database(tmp_repo)
    assert foreign.status == "fail" and "is not a kgraph database" in foreign.detail
    path.unlink()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE entities (id TEXT)")  # a pre-release layout
    old = doctor.check_database(tmp_repo)
    assert old.status == "fail" and "no schema version" in old.detail
    path.unlink()
    path.touch()  # empty: the first use creates the schema
    empty = doctor.check_database(tmp_repo)
    assert empty.status == "warn" and "upgraded on next use (tried on a copy)" in empty.detail


def test_damage_inside_a_table_is_found(tmp_repo: Path) -> None:
    path = _project_db(tmp_repo)
    pages = path.stat().st_size // 4096
    with path.open("r+b") as handle:  # one page deep inside the workflows table
        handle.seek((pages - 3) * 4096)
        handle.write(b"\xff" * 4096)
    check = doctor.check_database(tmp_repo)
    assert check.status == "fail"
    assert "quick_check found" in check.detail or "is damaged" in check.detail


def test_a_read_only_folder_fails_the_writable_check(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_repo / ".claude"
    folder.mkdir()
    real = os.access
    monkeypatch.setattr(
        doctor.os,
        "access",
        lambda p, mode: False if Path(p) == folder and mode & os.W_OK else real(p, mode),
    )
    check = doctor.check_writable(tmp_repo)
    assert check.status == "fail" and "no database can be created" in check.detail
    monkeypatch.setattr(doctor.os, "access", real)
    assert doctor.check_writable(tmp_repo).status == "ok"


def test_installed_timeouts_are_the_limits(tmp_repo: Path) -> None:
    install("local", tmp_repo, command=COMMAND)
    timeouts = doctor.installed_timeouts(tmp_repo)
    assert timeouts["SessionEnd"] == 5 and timeouts["SessionStart"] == 10


def _fake_timings(monkeypatch: pytest.MonkeyPatch, times: list[float]) -> list[int]:
    calls: list[int] = []

    def fake(command: list[str], event: str, root: Path, runs: int = 2, db_url: object = None):  # type: ignore[no-untyped-def]
        calls.append(runs)
        return times.pop(0), 0, ""

    monkeypatch.setattr(doctor, "time_hook", fake)
    return calls


def test_a_slow_sample_is_repeated_before_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_timings(monkeypatch, [2.0, 0.2])  # a busy moment, then the real speed
    check = doctor.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0)
    assert check.status == "ok" and calls == [2, doctor.SLOW_RESAMPLES]
    calls = _fake_timings(monkeypatch, [2.0, 1.9])  # slow twice: slow, but within 5 s
    check = doctor.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0)
    assert check.status == "warn" and "timeout 5 s" in check.detail
    _fake_timings(monkeypatch, [6.0, 6.0])
    assert doctor.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0).status == "fail"


def test_hooks_pointing_at_a_moved_kgraph(tmp_repo: Path) -> None:
    install("local", tmp_repo, command=["/old/clone/.venv/bin/kgraph"])
    failing = [c for c in doctor.check_wiring(tmp_repo) if c.status == "fail"]
    assert failing and all("no longer exists" in c.detail for c in failing)
    assert "kgraph install" in failing[0].detail


def test_on_a_server_doctor_tells_how_old_the_hooks_copy_is(
    tmp_repo: Path, pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.db import open_database
    from kgraph.db.location import resolve_database_url
    from kgraph.db.mirror_sync import refresh_mirror
    from kgraph.runtime.state import ensure_state_dir

    assert doctor.check_local_copy(tmp_repo) is None  # a file database: no copy
    monkeypatch.setenv("KGRAPH_DB", pg_server.fresh_url())
    db = open_database(resolve_database_url(cwd=tmp_repo))
    none_yet = doctor.check_local_copy(tmp_repo)
    assert none_yet is not None and none_yet.status == "warn" and "none yet" in none_yet.detail
    refresh_mirror(db, ensure_state_dir(tmp_repo))
    db.close()
    made = doctor.check_local_copy(tmp_repo)
    assert made is not None and made.status == "ok"
    # How old, in whole seconds: a slow machine may pass a second boundary in between.
    assert re.search(r"refreshed [0-9]+ s ago", made.detail), made.detail


def test_code_graph_build_says_pure_python_for_a_source_module() -> None:
    # This checkout's modules are .py files (an editable install is never compiled).
    check = doctor.check_code_graph_build()
    assert (check.name, check.status) == ("code graph build", "ok")
    assert check.detail.startswith("pure Python")


def test_code_graph_build_says_compiled_for_an_extension_module() -> None:
    # An extension module stands in for a compiled one: its spec's origin is a .so.
    check = doctor.check_code_graph_build("_json")
    assert check.detail == "compiled (mypyc)"


def test_doctor_warns_when_mcp_json_starts_another_kgraph(tmp_repo: Path) -> None:
    from kgraph.setup.mcpjson import register_server

    exe = str(Path(sys.executable).with_name("kgraph"))
    install("local", tmp_repo, command=[exe])
    register_server(tmp_repo, command=[exe])
    same = [c for c in doctor.check_wiring(tmp_repo) if c.name == "same kgraph"]
    assert [c.status for c in same] == ["ok"]
    register_server(tmp_repo, command=["/opt/old-venv/bin/kgraph"])
    [other] = [c for c in doctor.check_wiring(tmp_repo) if c.name == "same kgraph"]
    assert other.status == "warn" and "/opt/old-venv/bin/kgraph" in other.detail
