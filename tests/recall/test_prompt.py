"""Prompt recall without a code graph: a plain word that is a stored file's base name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.prompt import file_stems, prompt_ranked
from kgraph.recall.readmodel import open_store


@pytest.fixture
def conn(db: Database) -> Iterator[ReadConnection]:
    connection = open_store(db.url)
    assert connection is not None
    yield connection
    connection.close()


def test_a_word_naming_a_stored_file_finds_it_by_stem(db: Database, conn: ReadConnection) -> None:
    add_item(db, "Pinned the oldest interpreter in CI", files=["tox.ini"])
    add_item(db, "Entry points are declared once", files=["setup.py", "setup.cfg"])
    for n in range(4):
        add_item(db, f"Settings note {n}", files=[f"pkg{n}/conf.py"])
    found = file_stems(conn, ["tox", "setups", "conf", "nothing"], skip=lambda _: False)
    assert found == {"tox": ["tox.ini"], "setups": ["setup.cfg", "setup.py"]}
    assert file_stems(conn, ["tox"], skip="tox.ini".__eq__) == {}
    # "conf" names four files: none of them in particular.


def test_a_prompt_naming_a_file_by_its_stem_recalls_it_without_a_graph(
    db: Database, conn: ReadConnection
) -> None:
    about_tox = add_item(db, "The docs job needs its own environment", files=["tox.ini"])
    for n in range(60):  # rarity needs a base: "tox" is in no item's text
        add_item(db, f"Unrelated learning number {n}", files=[f"src/m{n}.py"])
    ranked = prompt_ranked(
        conn, "add a memory tox target", settings=EvidenceSettings(), exclude=set()
    )
    assert [r.item.id for r in ranked][:1] == [about_tox.entity_id]
    assert "tox file" in ranked[0].why
