"""A new user's first run: `kgraph install`, a session's worth of hooks, then `git add -A`.

Real processes (the install command, hook entry points, the detached worker, a parse), as a
person would run them: afterwards only Claude Code's settings files may be kgraph's in
``git status`` — never the database, its side files, the state folder or backups.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import TranscriptBuilder
from tests.hooks.processes import hook_env, run_hook_process, wait_for_workers


@pytest.fixture(autouse=True)
def _real_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGRAPH_HOOK_NO_SPAWN", raising=False)


def _kgraph(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgraph", *args],
        cwd=cwd,
        env=hook_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_install_and_a_session_leave_only_settings_for_git(
    tmp_repo: Path, git: Callable[..., str]
) -> None:
    installed = _kgraph(tmp_repo, "install")
    assert installed.returncode == 0, installed.stderr
    assert (tmp_repo / ".claude" / "settings.local.json").is_file()
    assert not (tmp_repo / ".claude" / "settings.json").exists()
    (tmp_repo / "app.py").write_text(
        "def main():\n    return helper()\n\ndef helper():\n    return 1\n"
    )
    env = hook_env()
    transcript = (
        Path(os.environ["CLAUDE_CONFIG_DIR"])
        / "projects"
        / encode_project_dir(str(tmp_repo))
        / "s-hygiene.jsonl"
    )
    base = {"session_id": "s-hygiene", "cwd": str(tmp_repo), "transcript_path": str(transcript)}
    assert run_hook_process("session-start", {**base, "source": "startup"}, tmp_repo, env)[0] == 0
    wait_for_workers(tmp_repo)
    (
        TranscriptBuilder("s-hygiene", str(tmp_repo), "main")
        .prompt("Why does main() call helper?")
        .say(
            "The issue was that main() must not compute the value itself, "
            "because helper() caches it."
        )
        .write(transcript)
    )
    for event, extra in (
        ("user-prompt", {"prompt": "why does main call helper?"}),
        ("pre-compact", {"trigger": "auto"}),
        ("stop", {}),
        ("session-end", {"reason": "prompt_input_exit"}),
    ):
        code, _out, err = run_hook_process(event, {**base, **extra}, tmp_repo, env)
        assert code == 0 and err == ""
    wait_for_workers(tmp_repo)
    assert (
        _kgraph(tmp_repo, "learn", "helper() caches its value", "--file", "app.py").returncode == 0
    )
    assert _kgraph(tmp_repo, "graph", "parse", ".").returncode == 0
    wait_for_workers(tmp_repo)
    claude = tmp_repo / ".claude"
    # Side files kgraph writes at other times: an upgrade's backup, WAL files, install backups.
    for name in (
        "execution-state.db-wal",
        "execution-state.db-shm",
        "execution-state.db.bak-0002-20260101T000000Z",
        "settings.local.json.bak-20260101T000000000000Z",
    ):
        (claude / name).touch()
    assert (claude / "execution-state.db").stat().st_size > 0
    assert (claude / "kgraph" / "hook.log").exists() or (claude / "kgraph").is_dir()

    git(tmp_repo, "add", "-A")
    status = git(tmp_repo, "status", "--porcelain").splitlines()
    kgraph_files = sorted(line[3:] for line in status if line[3:].startswith(".claude/"))
    assert kgraph_files == [".claude/.gitignore"], status
    ignore = (claude / ".gitignore").read_text()
    assert "/execution-state.db" in ignore and "/kgraph/" in ignore
    # The project settings a team commits are untouched; installing twice changes nothing.
    again = _kgraph(tmp_repo, "install")
    assert again.returncode == 0 and (claude / ".gitignore").read_text() == ignore
