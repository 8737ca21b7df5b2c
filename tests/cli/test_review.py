"""``kgraph knowledge review`` in-process: list, accept/reject by id, one by one, --json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kgraph.cli.main import cli
from kgraph.db import Database, open_database
from kgraph.knowledge import list_items
from tests.knowledge.test_candidates import CAUSE, OTHER, capture


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'kgraph.db'}"
    monkeypatch.setenv("KGRAPH_DB", url)
    database = open_database(url)
    yield database
    database.close()


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["knowledge", "review", *args], input=stdin)


def test_nothing_waiting_says_so(db: Database) -> None:
    result = run()
    assert result.exit_code == 0 and result.output.strip() == "no candidates waiting"


def test_lists_candidates_then_takes_verdicts_by_id(db: Database) -> None:
    kept = capture(db, CAUSE, "s1").entity_id
    dropped = capture(db, OTHER, "s1").entity_id
    listed = run()
    assert listed.exit_code == 0
    assert kept in listed.output and "explanation · src/http.py" in listed.output
    assert "parse_header" in listed.output
    done = run("--accept", kept[:9], "--reject", dropped, "--json")
    assert json.loads(done.output) == {"accepted": [kept], "rejected": [dropped]}
    assert [i.id for i in list_items(db)] == [kept]
    assert json.loads(run("--json").output) == {"candidates": []}


def test_one_by_one(db: Database) -> None:
    first = capture(db, CAUSE, "s1").entity_id
    second = capture(db, OTHER, "s1").entity_id
    result = run("-i", stdin="r\na\n")  # newest first: OTHER, then CAUSE
    assert result.exit_code == 0, result.output
    assert "1 accepted, 1 rejected" in result.output
    assert [i.id for i in list_items(db)] == [first]
    assert second in result.output


def test_an_item_that_is_no_candidate_is_exit_2(db: Database) -> None:
    result = run("--accept", "lrn-nothing")
    assert result.exit_code != 0 and "Traceback" not in result.output
