"""``graph parse`` of a folder outside the project needs --root: its files would replace
the stored graph's (an empty folder elsewhere once deleted the whole graph, exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgraph.cli.main import cli


def test_a_folder_outside_the_project_is_refused_unless_rooted(
    tmp_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_repo)
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    (tmp_repo / "app.py").write_text("def main():\n    return 1\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["graph", "parse", "."]).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    refused = runner.invoke(cli, ["graph", "parse", str(elsewhere)])
    assert refused.exit_code == 2
    assert f"is outside this project ({tmp_repo})" in refused.output
    assert f"--root {elsewhere}" in refused.output
    summary = json.loads(runner.invoke(cli, ["graph", "summary", "--json"]).output)
    assert summary["files"] == 1  # the stored graph is whole

    told = runner.invoke(cli, ["graph", "parse", str(elsewhere), "--root", str(elsewhere)])
    assert told.exit_code == 0, told.output
