"""No hook entry point imports the heavy modules (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kgraph.db import Database, open_database
from kgraph.knowledge.store import add_item
from tests.conftest import backend_url

HEAVY = ("torch", "sentence_transformers", "alembic", "networkx", "mcp")
DRIVER = """
import json, sys
from kgraph.cli.main import cli
try:
    cli.main(["hook", sys.argv[1]], prog_name="kgraph")
except SystemExit:
    pass
json.dump(sorted(sys.modules), open(sys.argv[2], "w"))
"""


def modules_after(
    event: str,
    payload: dict[str, object],
    cwd: Path,
    tmp_path: Path,
    stdout: Path | None = None,
) -> set[str]:
    out = tmp_path / f"modules-{event}.json"
    env = {**os.environ, "KGRAPH_HOOK_NO_SPAWN": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, event, str(out)],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert not proc.stderr
    if stdout is not None:
        stdout.write_text(proc.stdout)
    return {name.split(".")[0] for name in json.loads(out.read_text())}


def injecting_payload(repo: Path) -> dict[str, object]:
    """One payload every injecting hook reads: a session start, a prompt about stored
    knowledge, a Read of a file it is about."""
    return {
        "session_id": "s1",
        "cwd": str(repo),
        "source": "startup",
        "prompt": "payment webhook retries",
        "tool_name": "Read",
        "tool_input": {"file_path": str(repo / "README.md")},
    }


def store_knowledge(db: Database, repo: Path) -> None:
    add_item(db, "The README is rendered on PyPI as markdown", files=["README.md"])
    add_item(db, "Payment webhook retries three times on timeout")
    (repo / "README.md").write_text("changed\n")


@pytest.fixture
def repo_with_knowledge(
    request: pytest.FixtureRequest, backend: str, tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    url = backend_url(request, backend, tmp_repo / ".claude" / "execution-state.db")
    if backend == "postgresql":
        monkeypatch.setenv("KGRAPH_DB", url)
    db = open_database(url)
    store_knowledge(db, tmp_repo)
    db.close()
    return tmp_repo


@pytest.mark.parametrize("event", ["session-start", "user-prompt", "post-tool-use"])
def test_injecting_hooks_read_the_database_without_sqlalchemy(
    event: str, repo_with_knowledge: Path, tmp_path: Path
) -> None:
    out = tmp_path / "stdout.txt"
    loaded = modules_after(
        event, injecting_payload(repo_with_knowledge), repo_with_knowledge, tmp_path, out
    )
    # the database was really read: through sqlite3, or through psycopg alone on a server
    assert ("psycopg" in loaded) == (os.environ.get("KGRAPH_DB", "").startswith("postgresql"))
    assert "sqlite3" in loaded
    assert "kgraph-context" in out.read_text()  # and something injected
    assert not loaded.intersection((*HEAVY, "sqlalchemy", "numpy"))


@pytest.mark.parametrize("event", ["session-start", "user-prompt", "post-tool-use"])
def test_a_hook_that_logs_nothing_loads_neither_logging_nor_openssl(
    event: str, repo_with_knowledge: Path, tmp_path: Path
) -> None:
    """``logging`` and ``hashlib`` (which loads OpenSSL) cost a hook process about 8 ms: they
    are loaded only when a record is written or a digest other than blake2 is taken."""
    if os.environ.get("KGRAPH_DB", "").startswith("postgresql"):
        pytest.skip("psycopg imports logging itself")
    out = tmp_path / "stdout.txt"
    payload = injecting_payload(repo_with_knowledge)
    loaded = modules_after(event, payload, repo_with_knowledge, tmp_path, out)
    assert "kgraph-context" in out.read_text()
    assert not (repo_with_knowledge / ".claude" / "kgraph" / "hook.log").exists()
    assert not loaded.intersection({"logging", "hashlib", "_hashlib", "traceback"})


def test_a_hook_that_logs_a_record_writes_it_to_the_hook_log(
    repo_with_knowledge: Path, tmp_path: Path
) -> None:
    """A warning from below the hooks (here: the settings) reaches the hook's log file, not
    stderr (Claude Code shows a hook's stderr as an error)."""
    (repo_with_knowledge / ".claude").mkdir(exist_ok=True)
    (repo_with_knowledge / ".claude" / "kgraph.toml").write_text("[hooks\n")
    payload = injecting_payload(repo_with_knowledge)
    loaded = modules_after("post-tool-use", payload, repo_with_knowledge, tmp_path)
    assert "logging" in loaded
    log = (repo_with_knowledge / ".claude" / "kgraph" / "hook.log").read_text()
    assert "kgraph.toml ignored, defaults used" in log


@pytest.mark.parametrize("event", ["pre-compact", "stop", "session-end"])
def test_capture_hooks_import_no_sqlalchemy(
    event: str, repo_with_knowledge: Path, tmp_path: Path
) -> None:
    payload = {"session_id": "s1", "cwd": str(repo_with_knowledge), "transcript_path": "/x/t.jsonl"}
    loaded = modules_after(event, payload, repo_with_knowledge, tmp_path)
    assert not loaded.intersection((*HEAVY, "sqlalchemy", "numpy"))


def test_session_start_without_a_database_creates_none(tmp_repo: Path, tmp_path: Path) -> None:
    loaded = modules_after(
        "session-start", {"session_id": "s1", "cwd": str(tmp_repo)}, tmp_repo, tmp_path
    )
    assert not loaded.intersection(HEAVY)
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()


@pytest.mark.parametrize("event", ["session-start", "user-prompt", "post-tool-use"])
def test_with_a_fresh_local_copy_a_server_project_is_read_without_psycopg(
    event: str, pg_server: Any, tmp_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.db.location import resolve_database_url
    from kgraph.db.mirror_sync import refresh_mirror
    from kgraph.runtime.state import ensure_state_dir

    monkeypatch.setenv("KGRAPH_DB", pg_server.fresh_url())
    db = open_database(resolve_database_url(cwd=tmp_repo))
    store_knowledge(db, tmp_repo)
    refresh_mirror(db, ensure_state_dir(tmp_repo))
    db.close()
    out = tmp_path / "stdout.txt"
    loaded = modules_after(event, injecting_payload(tmp_repo), tmp_repo, tmp_path, out)
    assert "kgraph-context" in out.read_text()
    assert not loaded.intersection((*HEAVY, "sqlalchemy", "numpy", "psycopg"))
