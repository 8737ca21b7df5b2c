"""Ten hook processes at once against one database lose no write."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.capture.sessions import list_sessions
from kgraph.db import open_database
from kgraph.knowledge.query import list_items
from tests.capture.transcript_builder import TranscriptBuilder
from tests.hooks.processes import hook_env, start_hook, wait_for_workers


@pytest.fixture(autouse=True)
def _real_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGRAPH_HOOK_NO_SPAWN", raising=False)


def test_ten_hooks_at_once_interleaving_starts_and_captures(
    tmp_repo: Path, db_url: str, tmp_path: Path, git: Callable[..., str]
) -> None:
    env = hook_env()
    env["KGRAPH_DB"] = db_url
    open_database(db_url).close()
    (tmp_repo / "README.md").write_text("changed\n")
    processes = []
    for n in range(10):
        sid = f"sess-{n}"
        if n % 2:
            path = (
                TranscriptBuilder(sid, str(tmp_repo))
                .prompt(f"Remember this: service number {n} listens on port {8000 + n} only.")
                .write(tmp_path / f"{sid}.jsonl")
            )
            payload = {
                "session_id": sid,
                "cwd": str(tmp_repo),
                "transcript_path": str(path),
                "reason": "other",
            }
            processes.append(start_hook("session-end", payload, tmp_repo, env))
        else:
            payload = {"session_id": sid, "cwd": str(tmp_repo), "source": "startup"}
            processes.append(start_hook("session-start", payload, tmp_repo, env))
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and err == b""
        assert (
            out == b"" or json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        )
    wait_for_workers(tmp_repo)
    db = open_database(db_url)
    sessions = {s.session_id: s for s in list_sessions(db)}
    assert set(sessions) == {f"sess-{n}" for n in range(10)}
    head = git(tmp_repo, "rev-parse", "HEAD").strip()
    assert all(sessions[f"sess-{n}"].head_at_start == head for n in range(0, 10, 2))
    contents = sorted(i.content for i in list_items(db, limit=100, include_superseded=True))
    assert contents == sorted(
        f"Rule from the user: service number {n} listens on port {8000 + n} only."
        for n in range(1, 10, 2)
    )
    db.close()
