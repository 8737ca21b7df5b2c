"""``kgraph graph`` queries and a no-change parse without Click (kgraph.cli.graph_fast): the
shapes it takes, the same text and exit code as the Click command for the same database,
and the imports a process of each pays for."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from kgraph.cli.graph_fast import GraphCall, parse_graph_call, run_graph_call
from tests.codegraph.conftest import APP_FILES, write_tree
from tests.conftest import CliResult

Run = Callable[..., CliResult]
HEAVY = ("sqlalchemy", "alembic", "networkx", "torch", "tree_sitter", "click")


def _call(command: str, argument: str | None, *flags: str, **values: str) -> GraphCall:
    return GraphCall(command, argument, None, frozenset(flags), values)


@pytest.mark.parametrize(
    ("argv", "call"),
    [
        (["graph", "what-calls", "f"], _call("what-calls", "f")),
        (["graph", "callers", "--json", "f"], _call("callers", "f", "--json")),
        (
            ["--db", "/x.db", "graph", "blast-radius", "f", "--depth=5", "--include-unresolved"],
            GraphCall(
                "blast-radius", "f", "/x.db", frozenset({"--include-unresolved"}), {"--depth": "5"}
            ),
        ),
        (["graph", "find", "f", "--limit", "3"], _call("find", "f", **{"--limit": "3"})),
        (["graph", "exports", "a.py"], _call("exports", "a.py")),
        (
            ["graph", "what-depends-on", "a.py", "--depth", "2"],
            _call("what-depends-on", "a.py", **{"--depth": "2"}),
        ),
        (["graph", "parse"], _call("parse", None)),
        (
            ["graph", "parse", ".", "-j", "2", "--root", "/r"],
            _call("parse", ".", **{"--jobs": "2", "--root": "/r"}),
        ),
        # Everything else is Click's to parse, and to refuse.
        (["graph", "what-calls"], None),
        (["graph", "what-calls", "f", "g"], None),
        (["graph", "what-calls", "f", "--help"], None),
        (["graph", "what-calls", "f", "--json", "--json"], None),
        (["graph", "what-calls", "f", "--json=1"], None),
        (["graph", "what-calls", "f", "--depth", "2"], None),
        (["graph", "blast-radius", "f", "--depth", "0"], None),
        (["graph", "blast-radius", "f", "--depth", "21"], None),
        (["graph", "blast-radius", "f", "--depth", "+3"], None),
        (["graph", "blast-radius", "f", "--depth"], None),
        (["graph", "parse", "--force"], None),
        (["graph", "parse", "-j2"], None),
        (["graph", "parse", "-j=2"], None),
        (["graph", "parse", "--jobs", "65"], None),
        (["graph", "summary"], None),
        (["graph", "find", "-"], None),
        (["graph", "find", "--", "-x"], None),
        (["graph", "find", "x" * 1001], None),
        (["graph", "find", "bad\udcff"], None),
        (["workflow", "list"], None),
        ([], None),
    ],
)
def test_only_the_exact_shapes_skip_click(argv: list[str], call: GraphCall | None) -> None:
    assert parse_graph_call(argv) == call


@pytest.fixture
def app(tmp_repo: Path, run_kgraph: Run, git: Callable[..., str]) -> Path:
    """The queries' fixture application, committed (and one untracked file), parsed."""
    write_tree(tmp_repo, APP_FILES)
    git(tmp_repo, "add", "-A")
    git(tmp_repo, "commit", "-q", "-m", "app")
    (tmp_repo / "app" / "extra.py").write_text("from app.db import get_database\n")
    parsed = run_kgraph("graph", "parse", ".", cwd=tmp_repo)
    assert parsed.returncode == 0, parsed.stderr
    return tmp_repo


def run_fast(
    args: list[str], cwd: Path, db: Path | str, monkeypatch: pytest.MonkeyPatch
) -> CliResult | None:
    """``kgraph ARGS`` on the fast path, in this process, on the database ``db`` (a path or
    a URL); None when it leaves it to Click."""
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patch:
        patch.chdir(cwd)
        patch.setenv("KGRAPH_DB", str(db))
        with redirect_stdout(out), redirect_stderr(err):
            code = run_graph_call(args)
    return None if code is None else CliResult(code, out.getvalue(), err.getvalue())


def timeless(text: str) -> str:
    text = re.sub(r"in \d+\.\d\ds$", "in 0.00s", text, flags=re.MULTILINE)
    return re.sub(r'"seconds": [0-9.e-]+', '"seconds": 0', text)


SAME_AS_CLICK = [
    ["what-calls", "get_database"],
    ["what-calls", "get_database", "--json"],
    ["callers", "Repo.save", "--include-unresolved"],
    ["what-calls", "Repo"],
    ["blast-radius", "Database.query", "--depth", "2"],
    ["blast-radius", "app/db.py", "--json"],
    ["blast-radius", "Database.query", "--depth=5", "--include-unresolved", "--json"],
    ["blast-radius", "tests/test_service.py::test_handle"],
    ["find", "Repo"],
    ["find", "Rep", "--limit", "1", "--json"],
    ["find", "halth"],
    ["find", "zzzzqqq"],
    ["exports", "app/__init__.py"],
    ["exports", "app/db.py", "--json"],
    ["what-depends-on", "app/db.py", "--depth", "2"],
    ["what-depends-on", "app/db.py", "--json"],
    ["what-depends-on", "app/extra.py"],
    # errors: an ambiguous name (its candidates, exit 2), one not found, a file not parsed
    ["what-calls", "save"],
    ["blast-radius", "save", "--json"],
    ["what-calls", "no_such_thing"],
    ["exports", "nope.py"],
    ["find", " "],
    # a parse with nothing to do
    ["parse"],
    ["parse", ".", "--json"],
    ["parse", "app", "--jobs", "2"],
]


@pytest.mark.parametrize("args", SAME_AS_CLICK, ids=" ".join)
def test_the_fast_path_prints_what_click_prints(
    args: list[str], app: Path, run_kgraph: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = run_fast(["graph", *args], app, db_path, monkeypatch)
    assert fast is not None, "left to Click"
    clicked = run_kgraph("graph", *args, cwd=app)
    got = (fast.returncode, timeless(fast.stdout), fast.stderr)
    assert got == (clicked.returncode, timeless(clicked.stdout), clicked.stderr)
    assert fast.stdout.strip() or fast.stderr.strip()


def _logged(db_path: Path) -> int:
    import sqlite3

    with sqlite3.connect(db_path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM graph_queries").fetchone()[0])


def test_a_query_on_the_fast_path_is_logged_like_one_through_click(
    app: Path, run_kgraph: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _logged(db_path)
    assert run_fast(["graph", "what-calls", "health"], app, db_path, monkeypatch) is not None
    assert run_kgraph("graph", "what-calls", "health", cwd=app).returncode == 0
    assert _logged(db_path) == before + 2


def test_a_parse_with_work_to_do_goes_to_click(
    app: Path, run_kgraph: Run, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (app / "app" / "db.py").write_text(APP_FILES["app/db.py"] + "\n\ndef more():\n    pass\n")
    assert run_fast(["graph", "parse"], app, db_path, monkeypatch) is None
    changed = run_kgraph("graph", "parse", cwd=app)
    assert "1 changed" in changed.stdout
    assert run_fast(["graph", "parse"], app, db_path, monkeypatch) is not None
    (app / "app" / "extra.py").unlink()
    assert run_fast(["graph", "parse"], app, db_path, monkeypatch) is None


def test_without_a_database_or_with_a_bad_value_click_runs(
    tmp_repo: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_fast(["graph", "what-calls", "f"], tmp_repo, db_path, monkeypatch) is None
    assert not db_path.exists()  # nothing created: Click's path creates and migrates
    outside = tmp_repo.parent / "outside"
    outside.mkdir()
    assert run_fast(["graph", "parse", str(outside)], tmp_repo, db_path, monkeypatch) is None


@pytest.mark.parametrize(
    "args",
    [
        ["what-calls", "get_database"],
        ["callers", "Repo.save", "--json"],
        ["blast-radius", "Database.query"],
        ["find", "Repo"],
        ["exports", "app/__init__.py"],
        ["what-depends-on", "app/db.py", "--json"],
        ["parse", "."],
    ],
    ids=" ".join,
)
def test_a_process_of_each_imports_nothing_heavy(
    args: list[str], app: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process: what `python -X importtime` reports is the import budget of a fresh one.
    monkeypatch.setenv("KGRAPH_DB", str(db_path))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kgraph.cli.entry", "graph", *args],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "kgraph" in imported and "sqlite3" in imported
    assert not imported.intersection(HEAVY)
