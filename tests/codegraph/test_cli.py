"""``kgraph graph ...`` through the real CLI: output shapes, --json, errors, help."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.codegraph.conftest import CASES_DIR

Run = Callable[..., Any]


@pytest.fixture
def parsed(run_kgraph: Run, app_repo: Path) -> Path:
    result = run_kgraph("graph", "parse", str(app_repo), "--root", str(app_repo), "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert (report["scanned"], report["added"]) == (5, 5)
    return app_repo


def test_parse_twice_reports_nothing_to_do(run_kgraph: Run, parsed: Path) -> None:
    result = run_kgraph("graph", "parse", str(parsed), "--root", str(parsed))
    assert result.returncode == 0
    assert "5 files: 0 added, 0 changed, 0 deleted, 5 unchanged; 0 resolved" in result.stdout


def test_what_calls_and_callers_alias(run_kgraph: Run, parsed: Path) -> None:
    for command in ("what-calls", "callers"):
        result = run_kgraph("graph", command, "get_database", "--json", cwd=parsed)
        assert result.returncode == 0, result.stderr
        data = result.json()
        assert data["target"]["id"] == "app/db.py::get_database"
        assert {c["location"] for c in data["callers"]} == {"app/repo.py:6", "app/service.py:11"}
    table = run_kgraph("graph", "what-calls", "get_database", cwd=parsed)
    assert "Repo.__init__" in table.stdout and "app/repo.py:6" in table.stdout


def test_blast_radius_json_groups_tests_apart(run_kgraph: Run, parsed: Path) -> None:
    result = run_kgraph(
        "graph", "blast-radius", "Database.query", "--depth", "2", "--json", cwd=parsed
    )
    data = result.json()
    assert set(data["files"]) == {"app/repo.py", "app/service.py"}
    assert set(data["tests"]) == {"tests/test_service.py"}
    text = run_kgraph("graph", "blast-radius", "Database.query", cwd=parsed).stdout
    assert "Tests:" in text and "[1] health (function) calls Database.query:11" in text


def test_find_exports_depends_summary_export(run_kgraph: Run, parsed: Path) -> None:
    found = run_kgraph("graph", "find", "Repo", "--json", cwd=parsed).json()
    assert found["match"] == "exact"
    exported = run_kgraph("graph", "exports", "app/__init__.py", "--json", cwd=parsed).json()
    assert exported[0]["kind"] == "re-export"
    depends = run_kgraph("graph", "what-depends-on", "app/db.py", "--json", cwd=parsed).json()
    assert {d["path"] for d in depends} == {"app/__init__.py", "app/repo.py", "app/service.py"}
    summary = run_kgraph("graph", "summary", "--json", cwd=parsed).json()
    assert summary["files"] == 5
    graph = run_kgraph(
        "graph", "export", "--format", "callgraph-json", "--root", "app", cwd=parsed
    ).json()
    assert graph["service.health"] == ["db.Database.query", "db.get_database"]


def test_ambiguous_name_is_an_error_with_candidates(run_kgraph: Run, parsed: Path) -> None:
    result = run_kgraph("graph", "what-calls", "save", cwd=parsed)
    assert result.returncode == 2
    assert result.stderr.startswith("Error: 'save' is ambiguous: 2 candidates")
    # One candidate a line: a single long line was cut at a terminal's edge.
    assert "\n  app/repo.py::CachedRepo.save\n" in result.stderr
    as_json = run_kgraph("graph", "blast-radius", "save", "--json", cwd=parsed)
    assert as_json.returncode == 2
    assert {c["id"] for c in as_json.json()["candidates"]} == {
        "app/repo.py::Repo.save",
        "app/repo.py::CachedRepo.save",
    }


def test_errors_are_one_line(run_kgraph: Run, parsed: Path) -> None:
    missing = run_kgraph("graph", "what-calls", "nothing_like_this", cwd=parsed)
    assert missing.returncode == 1
    assert missing.stderr.strip().startswith("Error: no code entity named 'nothing_like_this'")
    assert len(missing.stderr.strip().splitlines()) == 1
    not_parsed = run_kgraph("graph", "exports", "app/nope.py", cwd=parsed)
    assert not_parsed.returncode == 1 and "Traceback" not in not_parsed.stderr
    bad_path = run_kgraph("graph", "parse", str(parsed / "nope"))
    assert bad_path.returncode == 2 and "Traceback" not in bad_path.stderr
    bad_depth = run_kgraph("graph", "blast-radius", "Repo", "--depth", "0", cwd=parsed)
    assert bad_depth.returncode == 2


def test_export_of_a_case_matches_its_expectation(run_kgraph: Run) -> None:
    assert run_kgraph("graph", "parse", str(CASES_DIR), "--root", str(CASES_DIR)).returncode == 0
    result = run_kgraph(
        "graph",
        "export",
        "--format",
        "callgraph-json",
        "--root",
        "super_call",
        cwd=CASES_DIR.parent,
    )
    expected = json.loads((CASES_DIR / "super_call" / "callgraph.json").read_text())
    got = result.json()
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}


def test_every_command_has_help_with_an_example(run_kgraph: Run) -> None:
    for command in (
        "parse",
        "what-calls",
        "callers",
        "blast-radius",
        "find",
        "exports",
        "what-depends-on",
        "summary",
        "export",
    ):
        result = run_kgraph("graph", command, "--help")
        assert result.returncode == 0
        assert "Example" in result.stdout, command


def _graph_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Path]:
    """A project outside git (cwd = its folder): ``src/`` holds a caller and a callee."""
    from click.testing import CliRunner

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "lib.py").write_text("def helper():\n    return 1\n")
    (project / "src" / "app.py").write_text(
        "from lib import helper\n\n\ndef main():\n    return helper()\n"
    )
    assert not any((p / ".git").exists() for p in (project, *project.parents))
    monkeypatch.chdir(project)
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    return CliRunner(), project


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
def test_parse_and_export_outside_git_agree_on_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    from kgraph.cli.main import cli

    runner, project = _graph_outside_git(tmp_path, monkeypatch)
    db = ["--db", str(tmp_path / "graph.db")]
    source = "src" if spelling == "relative" else str(project / "src")
    parsed = runner.invoke(cli, [*db, "graph", "parse", source, "--json"])
    assert parsed.exit_code == 0, parsed.output
    assert json.loads(parsed.output)["root"] == str(project)
    graphs = [
        json.loads(runner.invoke(cli, [*db, "graph", "export", "--root", root]).output)
        for root in ("src", str(project / "src"), "./src/")
    ]
    expected = {"app": [], "app.main": ["lib.helper"], "lib": [], "lib.helper": []}
    assert graphs == [expected, expected, expected]
    for name in ("src/lib.py", str(project / "src" / "lib.py")):
        exported = runner.invoke(cli, [*db, "graph", "exports", name, "--json"])
        assert exported.exit_code == 0, exported.output
        assert [e["entity"]["id"] for e in json.loads(exported.output)] == ["src/lib.py::helper"]


def test_names_given_as_paths_follow_the_same_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.cli.main import cli

    runner, project = _graph_outside_git(tmp_path, monkeypatch)
    assert runner.invoke(cli, ["graph", "parse", "src"]).exit_code == 0  # default database
    db = ["--db", str(project / ".claude" / "execution-state.db")]
    for name in ("src/lib.py::helper", str(project / "src" / "lib.py") + "::helper"):
        result = runner.invoke(cli, [*db, "graph", "what-calls", name, "--json"])
        assert result.exit_code == 0, result.output
        callers = json.loads(result.output)["callers"]
        assert [c["caller"]["id"] for c in callers] == ["src/app.py::main"]


def test_an_empty_graph_says_to_parse_first(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kgraph.cli.main import cli

    db = ["--db", str(tmp_path / "graph.db")]
    runner = CliRunner()
    summary = runner.invoke(cli, [*db, "graph", "summary"])
    assert summary.exit_code == 0 and "The code graph is empty" in summary.stdout
    exported = runner.invoke(cli, [*db, "graph", "export"])
    assert exported.exit_code == 0 and json.loads(exported.stdout) == {}  # still the format
    assert "no calls in the code graph (0 files): parse the project first" in exported.stderr
    missing = runner.invoke(cli, [*db, "graph", "what-calls", "helper"])
    assert missing.exit_code == 1 and "the code graph is empty" in missing.stderr


def test_export_under_a_folder_without_calls_says_so(run_kgraph: Run, parsed: Path) -> None:
    result = run_kgraph("graph", "export", "--root", "docs", cwd=parsed)
    assert result.returncode == 0 and result.json() == {}
    assert "no calls under docs in the code graph (5 files)" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["what-calls", "get_database", "--json"],
        ["blast-radius", "Database.query", "--depth", "2"],
        ["find", "Repo"],
        ["exports", "app/__init__.py", "--json"],
        ["what-depends-on", "app/db.py"],
        ["what-calls", "save"],
        ["parse", ".", "--root", "."],
    ],
    ids=" ".join,
)
def test_without_click_the_commands_print_the_same_on_either_backend(
    args: list[str],
    run_kgraph: Run,
    parsed: Path,
    db_path: Path,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """kgraph.cli.graph_fast on the driver alone (sqlite3, or psycopg on a server) prints
    what the Click command prints (tests/cli/test_graph_fast.py has the whole list)."""
    from tests.cli.test_graph_fast import run_fast, timeless

    database = db_path if db_url.startswith("sqlite") else db_url
    fast = run_fast(["graph", *args], parsed, database, monkeypatch)
    assert fast is not None, "left to Click"
    clicked = run_kgraph("graph", *args, cwd=parsed)
    got = (fast.returncode, timeless(fast.stdout), fast.stderr)
    assert got == (clicked.returncode, timeless(clicked.stdout), clicked.stderr)
