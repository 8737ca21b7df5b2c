"""Two developers' machines, one PostgreSQL server: what one captures, the other is told.

Each "machine" is a clone of the same repository in a folder of its own, running real hook
and worker processes with only ``KGRAPH_DB`` pointing at the server (no project named):
both clones name the project after their ``origin`` remote, so they share one memory, and a
clone of another repository on the same server sees none of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from kgraph.db import open_database, resolve_database_url
from kgraph.db.mirror import mirror_age, read_stamp, write_stamp
from kgraph.knowledge import review_candidate
from kgraph.knowledge.query import list_items
from kgraph.knowledge.store import add_item
from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import utf8_fix_session
from tests.conftest import CliResult
from tests.hooks.processes import hook_env, run_hook_process, wait_for_workers
from tests.pgserver import PgServer


@pytest.fixture(autouse=True)
def _real_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGRAPH_HOOK_NO_SPAWN", raising=False)


def _clone(git: Callable[..., str], origin: Path, where: Path) -> Path:
    git(where.parent, "clone", "-q", str(origin), where.name)
    git(where, "config", "user.email", f"{where.name}@example.com")
    git(where, "config", "user.name", where.name)
    git(where, "config", "commit.gpgsign", "false")
    return where


def _age_copy(folder: Path, seconds: float) -> None:
    stamp = read_stamp(folder)
    assert stamp is not None
    write_stamp(folder, replace(stamp, refreshed_at=stamp.refreshed_at - seconds))


def _briefing(clone: Path, session: str, env: dict[str, str]) -> str:
    code, out, err = run_hook_process(
        "session-start",
        {"session_id": session, "cwd": str(clone), "hook_event_name": "SessionStart"},
        clone,
        env,
    )
    assert code == 0 and err == ""
    wait_for_workers(clone)
    if not out:
        return ""
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


def test_a_mistake_captured_on_one_machine_reaches_the_other(
    pg_server: PgServer, tmp_repo: Path, tmp_path: Path, git: Callable[..., str]
) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "config.py").write_text("def load(p):\n    return open(p).read()\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "chore: config loader")
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob").mkdir()
    alice = _clone(git, tmp_repo, tmp_path / "alice" / "app")
    bob = _clone(git, tmp_repo, tmp_path / "bob" / "checkout")
    env = hook_env()
    env["KGRAPH_DB"] = pg_server.url()  # the server only: each clone names its project
    env.pop("KGRAPH_PROJECT", None)

    # Alice's session: an error, its fix, the explanation; her session end captures it.
    transcript = (
        Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_dir(str(alice))
    ) / "alice-1.jsonl"
    base = {"session_id": "alice-1", "cwd": str(alice), "transcript_path": str(transcript)}
    assert _briefing(alice, "alice-0", env) == ""
    (alice / "src" / "config.py").write_text(
        "def load(p):\n    return open(p, encoding='utf-8').read()\n"
    )
    git(alice, "commit", "-qam", "fix(config): read config files as UTF-8")
    utf8_fix_session("alice-1", alice, "main", transcript)
    code, out, err = run_hook_process(
        "session-end", {**base, "hook_event_name": "SessionEnd", "reason": "other"}, alice, env
    )
    assert (code, out, err) == (0, "", "")
    wait_for_workers(alice)

    # The agent's explanation is a candidate until corroborated: Alice accepts it.
    shared = open_database(pg_server.url(), cwd=alice)
    try:
        mistake = next(
            i
            for i in list_items(shared, limit=100, include_superseded=True)
            if i.type == "Mistake" and "locale encoding" in i.content
        )
        assert mistake.data["candidate"] == "pending"
        review_candidate(shared, mistake.id, True)
    finally:
        shared.close()

    # Bob, on his own clone elsewhere, touches the same file: his briefing has her mistake.
    (bob / "src" / "config.py").write_text("def load(p):\n    return open(p).read()\n# bob\n")
    context = _briefing(bob, "bob-1", env)
    assert f"Mistake [{mistake.id}]" in context

    # Bob's worker now keeps a local copy that his hooks read. Alice learns more; once Bob's
    # copy is older than session-start accepts, his next briefing reads the server, and the
    # worker it starts brings the copy up to date for his file hook.
    bob_url = resolve_database_url(cwd=bob, environ=env)
    assert mirror_age(bob / ".claude" / "kgraph", bob_url) is not None
    shared = open_database(pg_server.url(), cwd=alice)
    try:
        later = add_item(
            shared,
            "load() must not cache parsed config: src/config.py is reread on every call",
            type="Mistake",
            files=["src/config.py"],
        ).entity_id
    finally:
        shared.close()
    _age_copy(bob / ".claude" / "kgraph", 600)
    assert f"[{later}]" in _briefing(bob, "bob-2", env)
    code, out, err = run_hook_process(
        "post-tool-use",
        {
            "session_id": "bob-3",
            "cwd": str(bob),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(bob / "src" / "config.py")},
        },
        bob,
        env,
    )
    assert code == 0 and err == "" and f"[{later}]" in out

    # A clone of another repository on the same server is another project: nothing leaks.
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "remote", "add", "origin", "git@example.com:someone/else.git")
    (other / "src").mkdir()
    (other / "src" / "config.py").write_text("x = 1\n")
    assert mistake.id not in _briefing(other, "eve-1", env)


@pytest.mark.sqlite_only  # its own server, whatever the backend
def test_the_project_setting_reaches_the_server_without_kgraph_db(
    pg_server: PgServer, tmp_repo: Path, run_kgraph: Callable[..., CliResult]
) -> None:
    """Two shells, one with KGRAPH_DB and one without, meet on the server `kgraph install
    --db` recorded; with the server down the hooks say so once and make no local file."""
    url = pg_server.fresh_url("setting")
    installed = run_kgraph("install", "--db", url, "--no-history", cwd=tmp_repo, use_db=False)
    assert installed.returncode == 0, installed.stderr
    setting = (tmp_repo / ".claude" / "kgraph.toml").read_text()
    assert "[database]" in setting and url in setting
    learned = run_kgraph(
        "learn",
        "Timeouts are per request, never global",
        "--file",
        "src/net.py",
        cwd=tmp_repo,
        use_db=False,
        env={"KGRAPH_DB": url},
    )
    assert learned.returncode == 0, learned.stderr
    item = learned.stdout.split()[0]
    listed = run_kgraph("knowledge", "list", "--json", cwd=tmp_repo, use_db=False)
    assert item in listed.stdout  # the shell without KGRAPH_DB reads the same server
    env = hook_env()
    env.pop("KGRAPH_DB", None)
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "net.py").write_text("TIMEOUT = 5\n")
    payload = {"session_id": "s1", "cwd": str(tmp_repo), "hook_event_name": "SessionStart"}
    code, out, err = run_hook_process("session-start", payload, tmp_repo, env)
    assert (code, err) == (0, "") and item in out
    wait_for_workers(tmp_repo)
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()

    # The server is down (a port nothing listens on), and no local copy holds this project.
    down = "postgresql+psycopg://kgraph@127.0.0.1:1/kgraph?project=elsewhere"
    (tmp_repo / ".claude" / "kgraph.toml").write_text(f'[database]\nurl = "{down}"\n')
    told = []
    for session in ("s2", "s2", "s3"):
        payload = {"session_id": session, "cwd": str(tmp_repo), "hook_event_name": "SessionStart"}
        code, out, err = run_hook_process("session-start", payload, tmp_repo, env)
        assert (code, err) == (0, "")
        told.append(json.loads(out).get("systemMessage") if out else None)
        wait_for_workers(tmp_repo, timeout=60, drained=False)  # requests stay queued
    assert told[0] and "127.0.0.1" in told[0] and told[1] is None and told[2]  # once a session
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()
