"""The knowledge side's helpers (kgraph.api.knowledge), through the Project methods that use
them: an item's files, ids or prefixes, and which embedder a search or ``similar`` uses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kgraph
from kgraph.api import Project
from kgraph.errors import InvalidValueError, NotFoundError
from tests.api.sample import make_repo


def test_an_item_is_about_a_regular_file_of_the_project(
    sample: tuple[Project, dict[str, str]], tmp_path: Path
) -> None:
    kg, _ids = sample
    fifo = kg.root / "pipe"
    os.mkfifo(fifo)
    loop = kg.root / "loop"
    loop.symlink_to(loop)
    for path, says in (
        ("/dev/zero", "outside the project"),
        (str(tmp_path.parent / "elsewhere.py"), "outside the project"),
        ("pipe", "not a regular file"),
        (str(fifo), "not a regular file"),
        ("app", "not a regular file"),  # a folder
        ("loop", "cannot be read as a path"),
    ):
        with pytest.raises(InvalidValueError, match=says):
            kg.learn("A note on an odd path", files=[path])
    # A file that is gone (or not yet written) is fine: items outlive their files.
    assert kg.learn("A note on a deleted file", files=["app/old.py"]).created


def test_get_many_reports_missing_ids(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    found = kg.get_many([ids["repo.save"], "lrn-doesnotexist"])
    assert found["lrn-doesnotexist"] is None
    assert found[ids["repo.save"]] is not None
    with pytest.raises(NotFoundError):
        kg.get("lrn-doesnotexist")


def test_search_without_semantics_is_lexical(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with kgraph.open(repo, embedder=False) as kg:
        kg.learn("Repo.save retries on a locked database", files=["app/repo.py"])
        result = kg.search("locked database")
        assert result.mode == "lexical + graph"
        assert len(result) == 1


def test_similar_is_meaning_alone(sample: tuple[Project, dict[str, str]], tmp_path: Path) -> None:
    kg, ids = sample
    result = kg.similar("the second engine deadlocks on the WAL lock", limit=3)
    assert result.mode == "hybrid"
    assert result.hits[0].item.id == ids["open_store"]
    assert result.hits[0].score == result.hits[0].cosine
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
    with kgraph.open(tmp_path / "plain.db", embedder=False) as plain:
        assert plain.similar("anything").hits == ()
