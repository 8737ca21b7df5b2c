from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult


def test_hook_help_lists_every_entry_point(run_kgraph: Callable[..., CliResult]) -> None:
    result = run_kgraph("hook", "--help")
    assert result.returncode == 0
    for name in ("session-start", "user-prompt", "pre-compact", "stop", "session-end"):
        assert name in result.stdout
    assert "Example:" in result.stdout
    assert "Example:" in run_kgraph("hook", "session-start", "--help").stdout


def test_disabled_prints_nothing(run_kgraph: Callable[..., CliResult], tmp_repo: Path) -> None:
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_repo)})
    result = run_kgraph(
        "hook", "session-start", input=payload, cwd=tmp_repo, env={"KGRAPH_DISABLED": "1"}
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert not (tmp_repo / ".claude").exists()


def test_metrics_cli(run_kgraph: Callable[..., CliResult]) -> None:
    result = run_kgraph("metrics", "summary", "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["sessions"] == 0 and data["uptake_rate"] is None
    table = run_kgraph("metrics", "summary")
    assert table.returncode == 0 and "sessions" in table.stdout
    assert run_kgraph("metrics", "sessions", "--json").stdout.strip() == "[]"
    bad = run_kgraph("metrics", "summary", "--days", "0")
    assert bad.returncode == 2 and "Error" in bad.stderr
