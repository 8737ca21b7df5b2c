from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.transcript.discovery import encode_project_dir, normalise_cwd
from tests.transcript.factory import Session

Run = Callable[..., Any]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A Claude home with one project holding a stuck session."""
    home = tmp_path / "home-claude"
    project = tmp_path / "proj"
    project.mkdir()
    cwd = normalise_cwd(project)
    s = Session(session_id="s-stuck", cwd=cwd)
    s.prompt("make the build pass")
    for _ in range(3):
        s.tool("Bash", {"command": "make"}, "Exit code 2\nmake: *** [all] Error 2", is_error=True)
        s.tool("Edit", {"file_path": f"{cwd}/Makefile", "old_string": "a", "new_string": "b"})
    path = s.write(home / "projects" / encode_project_dir(cwd) / "s-stuck.jsonl")
    return home, project, path


def test_sessions_and_status(setup: tuple[Path, Path, Path], run_kgraph: Run) -> None:
    home, project, _ = setup
    listed = run_kgraph(
        "transcript",
        "sessions",
        "--project",
        str(project),
        "--claude-dir",
        str(home),
        "--json",
        use_db=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert [s["session_id"] for s in listed.json()] == ["s-stuck"]
    # CLAUDE_CONFIG_DIR is honoured too, and the project defaults to the cwd
    status = run_kgraph(
        "transcript",
        "status",
        "--json",
        cwd=project,
        env={"CLAUDE_CONFIG_DIR": str(home)},
        use_db=False,
    )
    assert status.returncode == 0, status.stderr
    data = status.json()
    assert data["state"] == "stuck" and data["stuck"]["pattern"] == "same_error"
    text = run_kgraph(
        "transcript", "status", "--project", str(project), "--claude-dir", str(home), use_db=False
    )
    assert "stuck" in text.stdout and "same_error" in text.stdout


def test_status_thresholds_from_config(setup: tuple[Path, Path, Path], run_kgraph: Run) -> None:
    home, project, _ = setup
    (project / ".claude").mkdir()
    (project / ".claude" / "kgraph.toml").write_text(
        "[transcript]\nstuck_same_error = 4\nstuck_alternation_cycles = 4\n"
    )
    data = run_kgraph(
        "transcript",
        "status",
        "--project",
        str(project),
        "--claude-dir",
        str(home),
        "--json",
        use_db=False,
    ).json()
    assert data["state"] == "working" and data["stuck"] is None


def test_status_without_sessions_is_an_error(tmp_path: Path, run_kgraph: Run) -> None:
    result = run_kgraph(
        "transcript",
        "status",
        "--project",
        str(tmp_path),
        "--claude-dir",
        str(tmp_path / "none"),
        use_db=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("Error: no Claude Code sessions")


def test_show_by_session_id_with_tail(setup: tuple[Path, Path, Path], run_kgraph: Run) -> None:
    home, _, _ = setup
    result = run_kgraph(
        "transcript",
        "show",
        "s-stuck",
        "--tail",
        "2",
        "--json",
        "--claude-dir",
        str(home),
        use_db=False,
    )
    assert result.returncode == 0, result.stderr
    rows = result.json()
    assert [r["type"] for r in rows] == ["assistant", "user"]
    assert "raw" not in rows[0]


def test_mistakes_qa_and_stats(setup: tuple[Path, Path, Path], run_kgraph: Run) -> None:
    _, _, path = setup
    mistakes = run_kgraph("transcript", "mistakes", str(path), "--json", use_db=False)
    assert mistakes.returncode == 0 and mistakes.json() == []
    stats = run_kgraph("transcript", "stats", str(path), "--json", use_db=False).json()
    assert stats["tool_calls"] == 6 and stats["tool_errors"] == 3
    assert stats["files_edited"] == 1 and stats["types"] == {"assistant": 6, "user": 7}
    qa = run_kgraph("transcript", "qa", str(path), use_db=False)
    assert qa.returncode == 0


@pytest.mark.parametrize("command", ["show", "stats", "qa", "mistakes", "subagents"])
def test_missing_and_unreadable_files_exit_1(command: str, tmp_path: Path, run_kgraph: Run) -> None:
    missing = run_kgraph("transcript", command, str(tmp_path / "nope.jsonl"), use_db=False)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines() == [
        f"Error: no transcript file or session id '{tmp_path / 'nope.jsonl'}'"
    ]
    if command != "subagents":
        unreadable = run_kgraph("transcript", command, str(tmp_path), use_db=False)
        assert unreadable.returncode == 1
        assert unreadable.stderr.startswith("Error: cannot read transcript")
        assert "Traceback" not in unreadable.stderr


def test_empty_file_stats(tmp_path: Path, run_kgraph: Run) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    stats = run_kgraph("transcript", "stats", str(path), "--json", use_db=False).json()
    assert (stats["entries"], stats["malformed"], stats["types"]) == (0, 0, {})


def test_help_has_examples(run_kgraph: Run) -> None:
    for command in ["sessions", "show", "stats", "status", "qa", "mistakes", "subagents"]:
        result = run_kgraph("transcript", command, "--help", use_db=False)
        assert result.returncode == 0 and "Example" in result.stdout
