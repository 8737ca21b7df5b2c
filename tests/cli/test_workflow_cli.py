"""The checkpoint CLI as a skill uses it: JSON out, clear errors; the flow script in real
processes (its `kgraph` runs are children of bash, not counted in the CLI-run summary)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import PROJECT_ROOT, CliResult

SKILL_FIELDS = {
    "id",
    "issue_number",
    "branch",
    "phase",
    "status",
    "retry_count",
    "actions",
    "commits",
    "created_at",
    "updated_at",
}


def test_flow_script_in_a_git_repo(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "kgraph"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m kgraph.cli.main "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("KGRAPH_DB", None)
    proc = subprocess.run(
        ["bash", str(PROJECT_ROOT / "scripts" / "checkpoint_flow.sh"), str(repo)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    docs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(docs) == 6
    for doc in docs:
        assert doc.keys() >= SKILL_FIELDS
    created, phased, acted, committed, found, done = docs
    assert created["phase"] == "research" and created["status"] == "running"
    assert phased["phase"] == "implement"
    assert acted["actions"][0]["action"] == "run-tests"
    assert acted["actions"][0]["metadata"] == {"failed": 3}
    assert committed["commits"][0] == {
        **committed["commits"][0],
        "sha": "abc123",
        "message": "feat: add parser",
    }
    assert found["id"] == created["id"]
    assert (found["phase"], len(found["actions"]), len(found["commits"])) == ("implement", 1, 1)
    assert done["status"] == "completed"
    assert created["updated_at"] < phased["updated_at"] < done["updated_at"]
    assert (repo / ".claude" / "execution-state.db").is_file()


def test_find_unknown_issue_prints_null(run_kgraph: Callable[..., CliResult]) -> None:
    result = run_kgraph("workflow", "find", "999", "--json")
    assert result.returncode == 0
    assert result.json() is None


def test_bad_phase_exits_2_naming_allowed_values(run_kgraph: Callable[..., CliResult]) -> None:
    wf = run_kgraph("workflow", "create", "1", "b", "--json").json()
    assert isinstance(wf, dict)
    result = run_kgraph("workflow", "set-phase", wf["id"], "coding")
    assert result.returncode == 2
    assert "'coding' is not one of 'research', 'implement'" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_id_exits_1(run_kgraph: Callable[..., CliResult]) -> None:
    result = run_kgraph("workflow", "get", "wf-missing")
    assert result.returncode == 1
    assert result.stderr.strip() == "Error: no workflow wf-missing"


def test_invalid_metadata_json_is_a_clear_error(run_kgraph: Callable[..., CliResult]) -> None:
    wf = run_kgraph("workflow", "create", "1", "b", "--json").json()
    assert isinstance(wf, dict)
    result = run_kgraph("workflow", "log-action", wf["id"], "x", "success", "--metadata", "{oops")
    assert result.returncode == 2
    assert "--metadata" in result.stderr and "not valid JSON" in result.stderr
    array = run_kgraph("workflow", "log-action", wf["id"], "x", "success", "--metadata", "[1]")
    assert array.returncode == 2 and "JSON object" in array.stderr


def test_what_a_log_command_prints_is_what_it_stored(
    run_kgraph: Callable[..., CliResult],
) -> None:
    # The agent's transcript keeps the line a command prints: a secret it typed is not
    # echoed back in full.
    wf = run_kgraph("workflow", "create", "1", "b", "--json").json()
    assert isinstance(wf, dict)
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    logged = run_kgraph("workflow", "log-action", wf["id"], f"push with {token}", "success")
    assert logged.returncode == 0 and token not in logged.stdout
    assert "[REDACTED:github-token]" in logged.stdout
    commit = run_kgraph("workflow", "log-commit", wf["id"], token, "feat: x")
    assert commit.returncode == 0 and token not in commit.stdout


def test_database_that_is_not_sqlite_is_one_line(
    run_kgraph: Callable[..., CliResult], tmp_path: Path
) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_text("not a database")
    result = run_kgraph("--db", str(bogus), "workflow", "list")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"Error: {bogus} is not a SQLite database (or its first page is damaged)"
    ]


def test_milestone_and_baseline_cli(run_kgraph: Callable[..., CliResult]) -> None:
    ms = run_kgraph("milestone", "create", "v1.2", "--github-number", "7", "--json").json()
    wf = run_kgraph("workflow", "create", "5", "feat/5", "--json").json()
    assert isinstance(ms, dict) and isinstance(wf, dict)
    linked = run_kgraph(
        "milestone", "add-workflow", ms["id"], wf["id"], "--wave", "2", "--json"
    ).json()
    assert isinstance(linked, dict)
    assert linked["workflows"] == [
        {
            "workflow_id": wf["id"],
            "wave_number": 2,
            "issue_number": 5,
            "status": "running",
            "phase": "research",
        }
    ]
    saved = run_kgraph(
        "baseline",
        "save",
        ms["id"],
        "--lint-exit-code",
        "1",
        "--lint-warnings",
        "4",
        "--lint-errors",
        "0",
        "--typecheck-exit-code",
        "0",
        "--typecheck-errors",
        "0",
        "--json",
    )
    assert saved.returncode == 0, saved.stderr
    shown = run_kgraph("baseline", "show", ms["id"], "--json").json()
    assert isinstance(shown, dict) and shown["lint_warnings"] == 4
    found = run_kgraph("milestone", "find", "v1.2", "--json").json()
    assert isinstance(found, dict) and found["id"] == ms["id"]
    wave0 = run_kgraph("milestone", "add-workflow", ms["id"], wf["id"], "--wave", "0")
    assert wave0.returncode == 2


def test_every_checkpoint_command_has_help_with_example(
    run_kgraph: Callable[..., CliResult],
) -> None:
    groups = {
        "workflow": [
            "create",
            "get",
            "find",
            "list",
            "set-phase",
            "set-status",
            "log-action",
            "log-commit",
            "delete",
            "cleanup",
        ],
        "milestone": [
            "create",
            "get",
            "find",
            "list",
            "set-phase",
            "set-status",
            "add-workflow",
            "delete",
        ],
        "baseline": ["save", "show"],
    }
    for group, commands in groups.items():
        for command in commands:
            result = run_kgraph(group, command, "--help", use_db=False)
            assert result.returncode == 0, (group, command)
            assert "Example" in result.stdout, (group, command)
            assert "--json" in result.stdout, (group, command)
