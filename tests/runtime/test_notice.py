"""A database problem reaches the user once per session, and is forgotten once fixed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgraph.capture.worker import run_worker
from kgraph.db import open_database
from kgraph.hooks.runner import run_hook
from kgraph.runtime.notice import clear_problem, notice_for, record_problem
from tests.db.test_open import corrupt_body, deny_writes, filled


@pytest.fixture(autouse=True)
def _no_spawn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.chdir(tmp_path)


def test_once_per_session_and_forgotten_when_the_file_changes(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"garbage")
    record_problem(tmp_path, "database x.db is damaged", db)
    first = notice_for(tmp_path, "s1")
    assert first is not None and "damaged" in first
    assert notice_for(tmp_path, "s1") is None
    assert notice_for(tmp_path, "s2") == first
    db.write_bytes(b"restored from a backup")
    assert notice_for(tmp_path, "s3") is None
    record_problem(tmp_path, "again", None)
    clear_problem(tmp_path)
    assert notice_for(tmp_path, "s4") is None


def test_a_long_problem_recorded_again_is_still_told_once_per_session(tmp_path: Path) -> None:
    long = "cannot reach the server: " + "x" * 400 + "\nsecond line"
    record_problem(tmp_path, long, None)
    assert notice_for(tmp_path, "s1") is not None
    record_problem(tmp_path, long, None)  # the next hook meets the same problem
    assert notice_for(tmp_path, "s1") is None and notice_for(tmp_path, "s2") is not None


def _hook(event: str, root: Path, session: str, **extra: str) -> str:
    payload = {"session_id": session, "cwd": str(root), **extra}
    return run_hook(event, json.dumps(payload).encode()).stdout


def test_hooks_on_a_damaged_database_tell_the_user_once(tmp_repo: Path) -> None:
    db_path = tmp_repo / ".claude" / "execution-state.db"
    corrupt_body(filled(db_path))
    out = json.loads(_hook("session-start", tmp_repo, "s1", source="startup"))
    assert list(out) == ["systemMessage"] and "is damaged" in out["systemMessage"]
    assert _hook("session-start", tmp_repo, "s1", source="resume") == ""
    assert _hook("user-prompt", tmp_repo, "s1", prompt="why does the loader fail?") == ""
    out = json.loads(_hook("user-prompt", tmp_repo, "s2", prompt="why does the loader fail?"))
    assert "is damaged" in out["systemMessage"]
    for event in ("stop", "pre-compact", "session-end"):
        assert _hook(event, tmp_repo, "s3") == ""  # these never print
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text().splitlines()
    assert log and all("is damaged" in line for line in log)  # one line each, no SQL


def test_the_worker_on_a_read_only_database_is_heard_at_the_next_start(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = tmp_repo / ".claude" / "execution-state.db"
    filled(db_path)
    deny_writes(monkeypatch, db_path)
    first = json.loads(_hook("session-start", tmp_repo, "s1", source="startup"))
    assert "read-only" in first["systemMessage"]  # seen at once: the file is not writable
    report = run_worker(tmp_repo)  # the session-start record cannot be written
    assert report.failed == 1
    out = json.loads(_hook("session-start", tmp_repo, "s2", source="startup"))
    assert "read-only" in out["systemMessage"]
    db = open_database(f"sqlite:///{db_path}")
    assert db.read_only
    db.close()


def test_session_start_in_a_read_only_project_says_nothing_is_captured(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from kgraph.runtime import notice

    claude = tmp_repo / ".claude"
    filled(claude / "execution-state.db")
    real = os.access
    monkeypatch.setattr(
        notice.os,
        "access",
        lambda p, mode: False if Path(p) == claude and mode & os.W_OK else real(p, mode),
    )
    out = json.loads(_hook("session-start", tmp_repo, "s1", source="startup"))
    assert "read-only: sessions are not captured" in out["systemMessage"]
    assert _hook("session-start", tmp_repo, "s1", source="resume") == ""  # told once
