"""A file whose analysis fails is recorded as failed, with why, and the rest of the graph is
built (issue 37, item 9: one file's ValueError made ``graph parse`` exit 1 and store
nothing for all of Django)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.codegraph import build, export_callgraph, graph_summary, memo, targets, workers
from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.refs import op_key, slice_start
from kgraph.codegraph.summary import Summary
from kgraph.db import Database
from kgraph.setup.dbcheck import check_database
from tests.codegraph.conftest import write_tree

Parse = Callable[..., ParseReport]
Run = Callable[..., Any]

# The file of the issue: a slice of *args, iterated and called.
ISSUE_FILE = "def run(*args):\n    for f in args[1:]:\n        f()\n"
FILES = {
    "a.py": "from b import helper\n\n\ndef main():\n    helper()\n",
    "b.py": "from c import work\n\n\ndef helper():\n    work()\n",
    "c.py": "def work():\n    pass\n\n\ndef idle():\n    work()\n",
}
CALLS = {
    "a": [],
    "a.main": ["b.helper"],
    "b": [],
    "b.helper": ["c.work"],
    "c": [],
    "c.idle": ["c.work"],
    "c.work": [],
}


def test_a_slice_has_no_key_of_its_own() -> None:
    assert (op_key("[1:]"), slice_start("[1:]")) == (None, 1)
    assert (op_key("[2]"), slice_start("[2]")) == (2, None)
    assert (op_key("['k']"), op_key("[]")) == ("k", None)


def test_the_file_of_the_issue_parses_and_its_slice_is_followed(
    run_kgraph: Run, db: Database, tmp_path: Path
) -> None:
    source = ISSUE_FILE + (
        "    args[1:][0]()\n"
        "\n\n"
        "def one():\n    pass\n\n\n"
        "def two():\n    pass\n\n\n"
        "def three():\n    pass\n\n\n"
        "run(one, two, three)\n"
    )
    repo = write_tree(tmp_path / "repo", {"issue.py": ISSUE_FILE, "more.py": source})
    result = run_kgraph("graph", "parse", str(repo), "--root", str(repo), "--json")
    assert result.returncode == 0, result.stderr
    assert (result.json()["resolved"], result.json()["failed"]) == (2, 0)
    graph = export_callgraph(db)
    assert graph["issue.run"] == []  # no caller passes anything: nothing to call
    assert graph["more.run"] == ["more.three", "more.two"]  # from the second on


def _fail_for(path: str) -> Callable[..., Any]:
    """``call_targets`` raising for the calls of ``path`` (a resolver bug in one file)."""

    def call_targets(resolver: Any, where: str, *args: Any) -> Any:
        if where == path:
            raise RuntimeError(f"boom in {where}")
        return targets.call_targets(resolver, where, *args)

    return call_targets


def test_a_file_whose_resolution_raises_is_recorded_and_the_rest_is_built(
    db: Database, tmp_path: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = write_tree(tmp_path / "repo", FILES)
    monkeypatch.setattr(build, "call_targets", _fail_for("b.py"))
    report = parse(repo)
    assert (report.resolved, report.failed) == (3, 1)
    summary = graph_summary(db)
    assert summary["failed_files"] == [
        {"path": "b.py", "stage": "resolve", "reason": "RuntimeError: boom in b.py"}
    ]
    # b.py keeps its definitions, not its calls; the other files are whole.
    assert export_callgraph(db) == {**CALLS, "b.helper": []}
    assert summary["entities"] == {"file": 3, "function": 4}

    # Recorded until it resolves again: an unchanged tree is not retried...
    monkeypatch.undo()
    assert (parse(repo).resolved, len(graph_summary(db)["failed_files"])) == (0, 1)
    # ...a forced (or changed) file is, and is no longer failed.
    report = parse(repo, force=True)
    assert (report.failed, graph_summary(db)["failed_files"]) == (0, [])
    assert export_callgraph(db) == CALLS


def test_a_file_the_summariser_fails_on_is_recorded_with_why(
    db: Database, tmp_path: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = workers.parse_source

    def parse_source(language: str, data: bytes) -> Summary:
        if b"def helper" in data:
            raise ValueError("unexpected node")
        return real(language, data)

    monkeypatch.setattr(workers, "parse_source", parse_source)
    repo = write_tree(tmp_path / "repo", FILES)
    report = parse(repo)
    assert (report.resolved, report.failed) == (3, 1)
    assert graph_summary(db)["failed_files"] == [
        {"path": "b.py", "stage": "parse", "reason": "ValueError: unexpected node"}
    ]
    # a.py's call goes to a name b.py no longer defines; c.py is whole.
    graph = export_callgraph(db)
    assert (graph["c.idle"], "b.helper" in graph) == (["c.work"], False)


def test_a_file_past_the_work_bound_keeps_what_it_found(
    db: Database, tmp_path: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A chain of 20 parameters: its file takes ~100 computations, the others 2 or 3.
    steps = "".join(f"def f{i}(x):\n    f{i + 1}(x)\n\n\n" for i in range(20))
    deep = f"def target():\n    pass\n\n\n{steps}def f20(x):\n    x()\n\n\nf0(target)\n"
    repo = write_tree(tmp_path / "repo", {**FILES, "_deep.py": deep})
    parse(repo)
    whole = export_callgraph(db)
    assert whole["_deep.f20"] == ["_deep.target"]

    monkeypatch.setattr(memo, "MAX_WORK", 30)
    report = parse(repo, force=True)
    assert report.failed == 1
    [failed] = graph_summary(db)["failed_files"]
    assert (failed["path"], failed["stage"]) == ("_deep.py", "bound")
    cut = export_callgraph(db)
    assert cut["_deep.f20"] != ["_deep.target"]  # not followed to its end...
    assert cut["_deep.f0"] == ["_deep.f1"]  # ...but what was found before the cut is kept
    # The files resolved after it (by path) are whole: nothing cut was cached for them.
    assert {k: v for k, v in cut.items() if not k.startswith("_deep")} == CALLS


def test_graph_summary_and_doctor_tell_of_failed_files(
    run_kgraph: Run,
    db: Database,
    db_url: str,
    tmp_path: Path,
    parse: Parse,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = write_tree(tmp_path / "repo", FILES)
    parse(repo)
    assert check_database(tmp_path, db_url).status == "ok"

    monkeypatch.setattr(build, "call_targets", _fail_for("c.py"))
    parse(repo, force=True)
    result = run_kgraph("graph", "summary", "--json")
    assert result.returncode == 0, result.stderr
    assert [f["path"] for f in result.json()["failed_files"]] == ["c.py"]
    check = check_database(tmp_path, db_url)
    assert check.status == "warn"
    assert "1 code graph file(s) failed (kgraph graph summary)" in check.detail
