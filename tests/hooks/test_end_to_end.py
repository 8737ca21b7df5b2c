"""The whole loop with real processes: empty briefing, work, capture, briefing with the lessons."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.db import open_database
from kgraph.knowledge.query import list_items
from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import utf8_fix_session
from tests.hooks.processes import hook_env, run_hook_process, wait_for_workers


@pytest.fixture(autouse=True)
def _real_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGRAPH_HOOK_NO_SPAWN", raising=False)


def test_session_start_capture_and_next_briefing(
    tmp_repo: Path, db_path: Path, git: Callable[..., str]
) -> None:
    env = hook_env(db_path)
    git(tmp_repo, "checkout", "-q", "-b", "feat/21-utf8-config")
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "config.py").write_text("def load(p):\n    return open(p).read()\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "chore: config loader")
    transcript = (
        Path(os.environ["CLAUDE_CONFIG_DIR"])
        / "projects"
        / encode_project_dir(str(tmp_repo))
        / "sess-1.jsonl"
    )
    base = {"session_id": "sess-1", "cwd": str(tmp_repo), "transcript_path": str(transcript)}

    # 1. First session: nothing known yet.
    code, out, err = run_hook_process(
        "session-start",
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        tmp_repo,
        env,
    )
    assert (code, out, err) == (0, "", "")
    wait_for_workers(tmp_repo)

    # 2. The session works: an error and its fix, a decision, commits.
    (tmp_repo / "src" / "config.py").write_text(
        "def load(p):\n    return open(p, encoding='utf-8').read()\n"
    )
    git(
        tmp_repo,
        "commit",
        "-qam",
        "fix(config): read config files as UTF-8 because Windows defaults "
        "to cp1252\n\nNon-ASCII values in config.toml crashed the loader on Windows.",
    )
    (tmp_repo / "notes.txt").write_text("n\n")
    git(tmp_repo, "add", "notes.txt")
    git(tmp_repo, "commit", "-qm", "docs: notes")
    utf8_fix_session("sess-1", tmp_repo, "feat/21-utf8-config", transcript)

    # 3. The session ends: the hook returns at once, the detached worker captures.
    code, out, err = run_hook_process(
        "session-end",
        {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
        tmp_repo,
        env,
    )
    assert (code, out, err) == (0, "", "")
    wait_for_workers(tmp_repo)
    db = open_database(f"sqlite:///{db_path}")
    items = list_items(db, limit=100)
    # The agent's own account of the cause waits for a second word (a candidate, hidden);
    # the commit that says why is knowledge at once.
    assert not any("locale encoding" in i.content for i in items)
    mistake = next(
        i
        for i in list_items(db, limit=100, include_superseded=True)
        if i.type == "Mistake" and "locale encoding" in i.content
    )
    assert mistake.files == ("src/config.py",)
    commit_learning = next(i for i in items if i.source == "commit")
    assert "UTF-8" in commit_learning.content and not any("docs: notes" in i.content for i in items)

    # 4. The next session touching the same file is briefed with what was learned.
    (tmp_repo / "src" / "config.py").write_text(
        "def load(p):\n    return open(p, encoding='utf-8').read()\n# x\n"
    )
    code, out, err = run_hook_process(
        "session-start",
        {
            "session_id": "sess-2",
            "cwd": str(tmp_repo),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
        tmp_repo,
        env,
    )
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = data["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 9_000
    assert f"[{commit_learning.id}]" in context and mistake.id not in context
    wait_for_workers(tmp_repo)

    # 5. Capturing the same session again adds nothing.
    before = {(i.id, i.seen_count) for i in list_items(db, limit=100)}
    code, out, err = run_hook_process("session-end", {**base, "reason": "other"}, tmp_repo, env)
    assert (code, out) == (0, "")
    wait_for_workers(tmp_repo)
    assert {(i.id, i.seen_count) for i in list_items(db, limit=100)} == before
    db.close()
