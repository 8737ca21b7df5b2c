"""The CLI's queries are the public API's: each command's --json gives what Project gives.

Run in-process (CliRunner) on the sample project, with the hashing embedder both ways.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgraph.api import Project
from kgraph.cli.main import cli
from tests.api.sample import open_sample


@pytest.fixture
def sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Project, dict[str, str]]]:
    kg, ids = open_sample(tmp_path)
    monkeypatch.chdir(kg.root)
    monkeypatch.setenv("KGRAPH_DB", str(kg.db.path))
    monkeypatch.setenv("KGRAPH_EMBEDDER", "fake")
    yield kg, ids
    kg.close()


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "query", ["engine deadlocks", "store database", "payment webhooks retried"]
)
def test_search_is_project_search(sample: tuple[Project, dict[str, str]], query: str) -> None:
    kg, _ids = sample
    expected = [h.to_dict() for h in kg.search(query, limit=5).hits]
    assert expected and cli_json("search", query, "--limit", "5") == expected
    lexical = [h.to_dict() for h in kg.search(query, limit=5, semantic=False).hits]
    assert cli_json("search", query, "--limit", "5", "--lexical") == lexical


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (["--file", "app/repo.py"], {"files": ["app/repo.py"]}),
        (
            ["--file", "app/web.py", "--file", "app/repo.py"],
            {"files": ["app/web.py", "app/repo.py"]},
        ),
        (
            ["--file", "app/cli.py", "--type", "mistake"],
            {"files": ["app/cli.py"], "types": ["mistake"]},
        ),
    ],
)
def test_knowledge_query_is_project_query(
    sample: tuple[Project, dict[str, str]], args: list[str], kwargs: dict[str, Any]
) -> None:
    kg, _ids = sample
    expected = [i.to_dict() for i in kg.query(**kwargs)]
    assert expected and cli_json("knowledge", "query", *args) == expected


def test_learn_is_project_learn(sample: tuple[Project, dict[str, str]]) -> None:
    kg, _ids = sample
    text = "Repo.load must not run before the migrations; it reads the new columns"
    stored = cli_json("learn", text, "--file", "app/repo.py", "--type", "pattern")
    item = kg.get(stored["id"])
    assert stored["item"] == item.to_dict() and item.files == ("app/repo.py",)
    again = kg.learn(text, type="Pattern", files=["app/repo.py"])
    assert again.entity_id == stored["id"] and not again.created
