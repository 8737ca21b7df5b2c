"""Prompt recall: a path or file name the prompt writes finds the files items are about,
with or without a parsed code graph; a plain word that is only a file's base name does not."""

from __future__ import annotations

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.prompt import prompt_ranked, stored_paths


def test_a_named_file_matches_stored_paths_by_suffix(db: Database, conn: ReadConnection) -> None:
    add_item(db, "Pinned the oldest interpreter in CI", files=["tox.ini"])
    add_item(db, "Debug output lists deleted files", files=["cmd/cli/debug.go"])
    for n in range(4):
        add_item(db, f"Settings note {n}", files=[f"pkg{n}/conf.py"])
    found = stored_paths(conn, ["tox.ini", "debug.go", "cli/debug.go", "conf.py", "bug.go"])
    assert found == {
        "tox.ini": ["tox.ini"],
        "debug.go": ["cmd/cli/debug.go"],
        "cli/debug.go": ["cmd/cli/debug.go"],
    }  # conf.py names four files: none of them; bug.go is no file's name


def _ids(conn: ReadConnection, prompt: str) -> list[str]:
    ranked = prompt_ranked(conn, prompt, settings=EvidenceSettings(), exclude=set())
    return [r.item.id for r in ranked]


def test_without_a_graph_a_named_file_recalls_and_a_bare_word_does_not(
    db: Database, conn: ReadConnection
) -> None:
    about = add_item(db, "Status must be called once per run", files=["cmd/hooks.go"])
    for n in range(60):  # rarity needs a base
        add_item(db, f"Unrelated learning number {n}", files=[f"src/m{n}.go"])
    assert _ids(conn, "the handlers in hooks.go are slow")[:1] == [about.entity_id]
    assert about.entity_id not in _ids(conn, "the handlers for hooks are slow, why?")
