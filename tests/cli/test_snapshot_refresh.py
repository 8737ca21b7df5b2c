"""A CLI write refreshes the hooks' context snapshot in the background; a read does not."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from kgraph.capture.snapshot import load_snapshot, refresh_snapshot, snapshot_path
from tests.conftest import CliResult


def _wait_until_fresh(root: Path, db_path: Path, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if load_snapshot(root, db_path) is not None:
            return True
        time.sleep(0.2)
    return False


def test_learn_refreshes_the_snapshot_and_list_does_not_spawn(
    tmp_repo: Path, run_kgraph: Callable[..., CliResult]
) -> None:
    db_path = tmp_repo / ".claude" / "execution-state.db"
    env = {"KGRAPH_DB": str(db_path)}
    first = run_kgraph(
        "learn",
        "Parser keeps byte offsets for errors",
        "--file",
        "a.py",
        "--json",
        cwd=tmp_repo,
        env=env,
    )
    assert first.returncode == 0, first.stderr
    assert refresh_snapshot(tmp_repo, f"sqlite:///{db_path}")
    assert load_snapshot(tmp_repo, db_path) is not None
    worker_log = tmp_repo / ".claude" / "kgraph" / "worker.out"
    starts_before = worker_log.read_text().count("worker started") if worker_log.exists() else 0

    listed = run_kgraph("knowledge", "list", "--json", cwd=tmp_repo, env=env)
    assert listed.returncode == 0, listed.stderr
    assert load_snapshot(tmp_repo, db_path) is not None  # a read leaves it fresh
    starts_after_read = worker_log.read_text().count("worker started") if worker_log.exists() else 0
    assert starts_after_read == starts_before

    second = run_kgraph(
        "learn",
        "Tokenizer must reject tabs in indentation",
        "--file",
        "a.py",
        "--json",
        cwd=tmp_repo,
        env=env,
    )
    assert second.returncode == 0, second.stderr
    new_id = json.loads(second.stdout)["id"]
    assert _wait_until_fresh(tmp_repo, db_path), "the background worker did not refresh it"
    assert new_id in json.dumps(json.loads(snapshot_path(tmp_repo).read_text())["items"])


def test_no_snapshot_no_spawn(tmp_repo: Path, run_kgraph: Callable[..., CliResult]) -> None:
    db_path = tmp_repo / ".claude" / "execution-state.db"
    result = run_kgraph(
        "learn",
        "Config is read once at start-up",
        "--file",
        "b.py",
        cwd=tmp_repo,
        env={"KGRAPH_DB": str(db_path)},
    )
    assert result.returncode == 0, result.stderr
    assert not (tmp_repo / ".claude" / "kgraph" / "worker.out").exists()
    assert not os.path.exists(snapshot_path(tmp_repo))


def test_a_write_to_another_database_starts_no_worker(
    tmp_repo: Path, tmp_path: Path, run_kgraph: Callable[..., CliResult]
) -> None:
    project_db = tmp_repo / ".claude" / "execution-state.db"
    first = run_kgraph(
        "learn",
        "Cache keys include the schema version",
        "--file",
        "c.py",
        cwd=tmp_repo,
        env={"KGRAPH_DB": str(project_db)},
    )
    assert first.returncode == 0, first.stderr
    assert refresh_snapshot(tmp_repo, f"sqlite:///{project_db}")
    other = tmp_path / "other.db"
    result = run_kgraph(
        "--db",
        str(other),
        "learn",
        "Unrelated note about deployment windows",
        cwd=tmp_repo,
        env={"KGRAPH_DB": str(project_db)},
    )
    assert result.returncode == 0, result.stderr
    assert other.is_file()
    assert not (tmp_repo / ".claude" / "kgraph" / "worker.out").exists()
    assert load_snapshot(tmp_repo, project_db) is not None
