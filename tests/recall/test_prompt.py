"""Prompt recall: a path or file name the prompt writes finds the files items are about,
with or without a parsed code graph; a plain word that is only a file's base name does not."""

from __future__ import annotations

import json

import pytest

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.prompt import prompt_ranked, stored_paths, without_code


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
    about = add_item(db, "The handlers call Status twice, which is slow", files=["cmd/hooks.go"])
    history = add_item(db, "Renamed the Gemini hook to match Claude's", files=["cmd/hooks.go"])
    for n in range(60):  # rarity needs a base
        add_item(db, f"Unrelated learning number {n}", files=[f"src/m{n}.go"])
    found = _ids(conn, "the handlers in hooks.go are slow")
    assert found[:1] == [about.entity_id]
    # The file is named, but this item shares no other telling word with the prompt.
    assert history.entity_id not in found
    assert about.entity_id not in _ids(conn, "the handlers for hooks are slow, why?")


def test_code_tokens_and_backticked_spans_are_blanked_whole() -> None:
    text = "retry `the client` in src/net.py, x.y and plain words; a.b`c` end"
    assert without_code(text).split() == ["retry", "in", "and", "plain", "words;", "end"]
    # Every character without a space is one token, read once: nothing to blank here.
    assert without_code("ab" * 50_000) == "ab" * 50_000
    assert without_code("(" * 10_000) == "(" * 10_000


def test_a_prompt_of_minified_json_or_no_spaces_still_finds_named_files(
    db: Database, conn: ReadConnection
) -> None:
    about = add_item(db, "Retries need a deadline", files=["src/net.py"])
    for n in range(20):
        add_item(db, f"Unrelated learning number {n}", files=[f"src/m{n}.py"])
    minified = json.dumps(
        {"k": [{"path": "src/net.py", "retries": 3, "deadline": None, "v": list(range(3000))}]}
    )
    assert _ids(conn, minified.replace(" ", ""))[:1] == [about.entity_id]
    assert _ids(conn, "x" * 100_000) == []
    assert _ids(conn, "(" * 10_000) == []


def test_an_item_found_by_words_alone_needs_a_phrase_of_the_prompt(
    db: Database, conn: ReadConnection
) -> None:
    # Cut from replayed real sessions: the first shares "git status" with the prompt and
    # helped; the second shared only scattered words ("branch", "commits") and did not.
    phrase = add_item(
        db,
        "perf: consolidate git status calls in stop hook. Combine ComputeNewFiles and "
        "ComputeDeletedFiles into one function that calls worktree.Status() once.",
    ).entity_id
    scattered = add_item(
        db,
        "Shadow branches use 7-char hashes but the state stored 40-char hashes of the "
        "base commits, so the comparison always failed.",
    ).entity_id
    for n in range(40):  # rarity needs a base
        add_item(db, f"Unrelated learning number {n} about templates")
    assert _ids(conn, "our git status has broken, why?") == [phrase]
    assert _ids(conn, "status of git: broken") == []  # the same words, not side by side
    prompt = "after merging main into a branch, resume finds no commits with trailers"
    assert scattered not in _ids(conn, prompt)


@pytest.mark.parametrize("origin", ["commit.review", "commit.what", "history.what"])
def test_a_reviews_answer_comes_only_when_the_prompt_names_its_code(
    db: Database, conn: ReadConnection, origin: str
) -> None:
    review = {"origin": origin}  # a review's answer, or a commit listing what changed
    answer = add_item(
        db,
        "Address PR review: the handlers call Status twice, which is slow; cache it once",
        files=["cmd/hooks.go"],
        data=review,
    ).entity_id
    phrase = add_item(
        db, "Address review feedback: git status calls consolidated in the stop hook", data=review
    ).entity_id
    plain = add_item(
        db, "The handlers call Status twice, which is slow", files=["cmd/hooks.go"]
    ).entity_id
    for n in range(60):  # rarity needs a base
        add_item(db, f"Unrelated learning number {n}", files=[f"src/m{n}.go"])
    # The file named and a telling word shared bring an item, but not a review's answer;
    # nor does a phrase of the prompt.
    found = _ids(conn, "the handlers in hooks.go are slow")
    assert plain in found and answer not in found
    assert phrase not in _ids(conn, "our git status has broken, why?")
