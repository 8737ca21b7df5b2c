"""``kgraph viz`` in-process: where it writes, what it prints, --json, --focus, --open."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kgraph.cli.main import cli
from tests.viz.conftest import Project

Run = Callable[..., Result]


@pytest.fixture
def run(project: Project, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``run(*args)``: ``kgraph --db DB viz *args`` in the project folder."""
    monkeypatch.chdir(project.root)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--db", str(db_path), "viz", *args])

    return invoke


def test_writes_the_page_under_the_project_state_folder_by_default(
    run: Run, project: Project
) -> None:
    result = run()
    assert result.exit_code == 0, result.output
    page = project.root / ".claude" / "kgraph" / "viz.html"
    assert page.is_file()
    size_kb = page.stat().st_size / 1024
    assert result.output == f"Wrote {page} ({size_kb:,.0f} KB): 14 nodes, 11 edges.\n"
    assert "Content-Security-Policy" in page.read_text()


def test_json_report_with_focus_and_aggregation_notes(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "out" / "page.html"
    missing = run("-o", str(out))  # a folder is never made where -o points (as root: /x)
    assert missing.exit_code == 2 and "does not exist" in missing.output
    out.parent.mkdir()
    result = run(
        "--focus", "app/api.py", "--depth", "1", "--max-nodes", "20", "-o", str(out), "--json"
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["path"] == str(out) and out.stat().st_size == report["bytes"]
    assert (report["nodes"], report["aggregated"], report["opened"]) == (11, [], None)
    assert report["notes"][0].startswith("Focus: app/api.py.")


def test_an_existing_path_is_taken_relative_to_the_project(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "f.html"
    result = run("--focus", "./app/../app/db.py", "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["notes"][0].startswith("Focus: app/db.py.")


def test_bad_focus_and_depth_are_one_line_errors(run: Run) -> None:
    missing = run("--focus", "no_such_thing")
    assert missing.exit_code == 1
    assert missing.output == "Error: no knowledge id, file or code symbol 'no_such_thing'\n"
    depth = run("--depth", "0")
    assert depth.exit_code == 2
    assert "--depth" in depth.output


def test_open_hands_the_file_to_the_default_browser(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    out = tmp_path / "o.html"
    assert run("-o", str(out), "--open").exit_code == 0
    assert opened == [out.resolve().as_uri()]
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    result = run("-o", str(out), "--open")
    assert result.output.endswith(f"No browser found to open it: open {out.resolve().as_uri()}\n")


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["viz", "--help"])
    assert result.exit_code == 0
    assert "kgraph viz --focus Database.read --depth 3" in result.output
    assert "viz" in CliRunner().invoke(cli, ["--help"]).output
