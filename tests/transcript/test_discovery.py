from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgraph.transcript.discovery import (
    agent_id_from_name,
    claude_home,
    encode_project_dir,
    find_session,
    find_subagents,
    is_compaction_agent,
    latest_session,
    list_sessions,
    normalise_cwd,
    project_dir_for,
)
from tests.transcript.factory import Session


def _session_file(
    directory: Path, session_id: str, cwd: str, mtime: float | None = None, **kwargs: object
) -> Path:
    s = Session(session_id=session_id.split("agent-")[-1], cwd=cwd, **kwargs)  # type: ignore[arg-type]
    s.prompt("hello")
    path = s.write(directory / f"{session_id}.jsonl")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "claude-home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "my_app.v2"
    path.mkdir(parents=True)
    return path


def test_claude_home_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "env"))
    assert claude_home(tmp_path / "arg") == tmp_path / "arg"
    assert claude_home() == tmp_path / "env"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert claude_home() == tmp_path / "h" / ".claude"


def test_encoding_is_lossy_like_claude_code() -> None:
    assert encode_project_dir("/Users/alice/my_app.v2") == "-Users-alice-my-app-v2"
    assert encode_project_dir("C:\\HApps\\project") == "C--HApps-project"


def test_sessions_newest_first_excluding_agents(home: Path, project: Path) -> None:
    cwd = normalise_cwd(project)
    directory = home / "projects" / encode_project_dir(cwd)
    _session_file(directory, "old", cwd, mtime=1_000)
    _session_file(directory, "new", cwd, mtime=3_000)
    _session_file(directory, "agent-abc1234", cwd, mtime=5_000, sidechain=True)
    assert project_dir_for(project, home) == directory
    sessions = list_sessions(project, home)
    assert [s.session_id for s in sessions] == ["new", "old"]
    assert sessions[0].cwd == cwd and sessions[0].size > 0
    latest = latest_session(project, home)
    assert latest is not None and latest.session_id == "new"
    assert find_session("old", home) == directory / "old.jsonl"
    assert find_session("../etc/passwd", home) is None


def test_no_project_dir(home: Path, project: Path) -> None:
    assert project_dir_for(project, home) is None
    assert list_sessions(project, home) == []
    assert latest_session(project, home) is None


def test_lossy_collision_is_resolved_by_cwd_field(home: Path, tmp_path: Path) -> None:
    mine = tmp_path / "x" / "my_app"
    other = tmp_path / "x" / "my-app"
    mine.mkdir(parents=True)
    other.mkdir(parents=True)
    directory = home / "projects" / encode_project_dir(normalise_cwd(mine))
    assert directory.name == encode_project_dir(normalise_cwd(other))
    _session_file(directory, "theirs", normalise_cwd(other))
    assert project_dir_for(mine, home) is None  # every file there belongs to the other path
    _session_file(directory, "ours", normalise_cwd(mine))
    assert [s.session_id for s in list_sessions(mine, home)] == ["ours"]
    assert [s.session_id for s in list_sessions(other, home)] == ["theirs"]


def test_long_paths_match_on_prefix(home: Path, tmp_path: Path) -> None:
    deep = tmp_path
    for i in range(12):
        deep = deep / f"very_long_directory_name_{i:02d}"
    deep.mkdir(parents=True)
    cwd = normalise_cwd(deep)
    assert len(encode_project_dir(cwd)) > 200
    directory = home / "projects" / (encode_project_dir(cwd)[:200] + "-k3x9z")
    _session_file(directory, "s1", cwd)
    assert project_dir_for(deep, home) == directory
    assert [s.session_id for s in list_sessions(deep, home)] == ["s1"]


def test_subagents_in_all_three_layouts(home: Path, project: Path) -> None:
    cwd = normalise_cwd(project)
    directory = home / "projects" / encode_project_dir(cwd)
    session = _session_file(directory, "sess-a", cwd)
    subdir = directory / "sess-a" / "subagents"
    _session_file(subdir, "agent-a2898e3", cwd, sidechain=True, agent_id="a2898e3")
    _session_file(subdir, "agent-acompact-946d2b", cwd, sidechain=True, agent_id="acompact-946d2b")
    _session_file(subdir / "workflows" / "wf1", "agent-b111111", cwd, sidechain=True)
    # legacy 2.0.x: beside the sessions, sessionId = the parent's
    legacy = Session(session_id="sess-a", cwd=cwd, sidechain=True, agent_id="1a2b3c4d")
    legacy.prompt("Warmup")
    legacy.write(directory / "agent-1a2b3c4d.jsonl")
    foreign = Session(session_id="sess-other", cwd=cwd, sidechain=True, agent_id="99999999")
    foreign.prompt("x")
    foreign.write(directory / "agent-99999999.jsonl")
    # inline 1.0.x: sidechain lines inside the session file
    main = Session(session_id="sess-a", cwd=cwd)
    main.prompt("do it")
    main.tool("Task", {"prompt": "look"})
    side = Session(session_id="sess-a", cwd=cwd, sidechain=True)
    side.prompt("look")
    side.text("found")
    main.lines.extend(side.lines)
    main.write(session)

    found = {(s.agent_id, s.layout, s.is_compaction) for s in find_subagents(session)}
    inline_id = f"inline-{side.lines[0]['uuid'][:8]}"
    assert found == {
        ("a2898e3", "subagents_dir", False),
        ("acompact-946d2b", "subagents_dir", True),
        ("b111111", "subagents_dir", False),
        ("1a2b3c4d", "legacy", False),
        (inline_id, "inline", False),
    }
    warmups = {s.agent_id for s in find_subagents(session) if s.is_warmup}
    assert warmups == {"1a2b3c4d"}  # the 2.0.x startup agent
    assert [s.layout for s in find_subagents(session, inline=False)].count("inline") == 0
    # agent files never count as sessions
    assert [s.session_id for s in list_sessions(project, home)] == ["sess-a"]


def test_agent_file_names() -> None:
    assert agent_id_from_name("agent-aac57f5.jsonl") == "aac57f5"
    assert agent_id_from_name("agent-.jsonl") is None
    assert agent_id_from_name("session.jsonl") is None
    assert is_compaction_agent("acompact-946d2b") and not is_compaction_agent("aac57f5")
