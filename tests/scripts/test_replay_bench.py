"""The replay benchmark (scripts/replay_*.py): history split, scoring, and one real replay."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
import replay_bench
from replay_history import (
    Commit,
    clean_body,
    hub_files,
    learning_record,
    read_history,
    sample_sessions,
    split_history,
)
from replay_scoring import (
    BM25,
    Ground,
    bm25_top,
    ground,
    is_relevant,
    outcomes,
    recency_top,
    score,
    table,
)
from replay_sessions import MODES, StoredItem, additional_context, injected_ids

# (subject, body, {path: content, or None to delete})
HISTORY: list[tuple[str, str, dict[str, str | None]]] = [
    ("Initial", "", {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n", "CHANGES": "-\n"}),
    (
        "Retry loop in a",
        "The retry loop in a.py never reset its counter because the reset lived in the "
        "except branch.\n\nChange-Id: I0123456789",
        {"a.py": "a = 2\n", "CHANGES": "- retry\n"},
    ),
    (
        "Cache keys in b",
        "Cache keys in b.py include the user id so that two users never share an entry.",
        {"b.py": "b = 2\n", "CHANGES": "- cache\n"},
    ),
    ("tweak", "", {"c.py": "c = 2\n"}),
    (
        "Parser of c",
        "The parser in c.py reads the header first since the body depends on it.\n\n"
        "Signed-off-by: Someone <someone@example.com>",
        {"c.py": "c = 3\n", "CHANGES": "- parser\n"},
    ),
    ("bump", "short body", {"CHANGES": "- bump\n"}),
    ("Fix the retry counter in a again", "", {"a.py": "a = 3\n", "CHANGES": "- again\n"}),
    ("More cache keys in b", "", {"b.py": "b = 3\n", "d.py": "d = 1\n", "c.py": None}),
]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def _new_repo(root: Path) -> Path:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "T")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small repository with HISTORY as its commits (oldest first)."""
    root = _new_repo(tmp_path / "origin")
    for subject, body, files in HISTORY:
        for path, content in files.items():
            if content is None:
                _git(root, "rm", "-q", path)
            else:
                (root / path).write_text(content)
                _git(root, "add", path)
        _git(root, "commit", "-q", "-m", subject + (f"\n\n{body}" if body else ""))
    return root


def test_history_is_first_parent_oldest_first_with_bodies_cleaned(repo: Path) -> None:
    commits = read_history(repo)
    assert [c.subject for c in commits] == [h[0] for h in HISTORY]
    assert [c.index for c in commits] == list(range(len(HISTORY)))
    assert commits[0].parent is None
    assert all(c.parent == p.sha for p, c in itertools.pairwise(commits))
    assert "Change-Id" not in commits[1].body and commits[1].body.startswith("The retry loop")
    assert commits[4].learning_text.endswith("depends on it.")
    assert set(commits[7].files) == {"b.py", "c.py", "d.py"}  # the deletion included
    assert [c.has_body for c in commits] == [False, True, True, False, True, False, False, False]


def test_clean_body_drops_trailers_only() -> None:
    body = "Why it changed.\nFixes: #12\nCo-authored-by: X <x@example.com>\nThe end."
    assert clean_body(body) == "Why it changed.\nThe end."


def test_split_learns_from_commits_with_a_body_before_the_cut(repo: Path) -> None:
    split = split_history(read_history(repo), 0.75)
    assert split.cut == 6
    assert [c.subject for c in split.learnings] == [
        "Retry loop in a",
        "Cache keys in b",
        "Parser of c",
    ]
    assert split.last_learning_commit.subject == "bump"
    assert [c.index for c in split.later] == [6, 7]
    with pytest.raises(ValueError):
        split_history(read_history(repo), 1.0)


def test_hub_files_are_the_ones_most_commits_change(repo: Path) -> None:
    split = split_history(read_history(repo), 0.75)
    assert hub_files(split.learnings, share=0.5) == {"CHANGES"}
    assert hub_files(split.learnings) == {"CHANGES", "a.py", "b.py", "c.py"}  # 1 of 3 > 25%
    assert hub_files(split.earlier, share=0.5) == {"CHANGES"}
    assert hub_files(split.earlier, share=0.9) == frozenset()


def test_session_sample_is_seeded_sorted_and_needs_a_parent(repo: Path) -> None:
    commits = read_history(repo)
    first = sample_sessions(commits, 4, seed=3)
    assert first == sample_sessions(commits, 4, seed=3)
    assert [c.index for c in first] == sorted(c.index for c in first)
    assert all(c.parent for c in sample_sessions(commits, 100, seed=0))
    assert len(sample_sessions(commits, 100, seed=0)) == len(commits) - 1


def test_learning_record_is_a_commit_learning_tied_to_its_files(repo: Path) -> None:
    commit = read_history(repo)[1]
    record = learning_record(commit)
    assert record["content"] == commit.learning_text
    assert sorted(record["files"]) == ["CHANGES", "a.py"]  # type: ignore[arg-type]
    assert record["source"] == "commit" and record["source_ref"] == commit.sha


def _commit(index: int, files: tuple[str, ...], subject: str = "s") -> Commit:
    return Commit(index, f"sha{index}", f"sha{index - 1}", subject, "", files)


def _item(name: str, order: int, files: tuple[str, ...], content: str = "") -> StoredItem:
    return StoredItem(f"lrn-{name}", f"sha{order}", order, files, content or f"about {name}")


ITEMS = [
    _item("a", 1, ("a.py", "CHANGES"), "retry counter reset in the except branch"),
    _item("b", 2, ("b.py", "CHANGES"), "cache keys include the user id"),
    _item("c", 3, ("c.py",), "the parser reads the header first"),
]


def test_relevance_shares_a_file_and_hub_files_can_be_left_out() -> None:
    session = _commit(9, ("a.py", "CHANGES"))
    assert is_relevant(ITEMS[0], session)
    assert is_relevant(ITEMS[1], session)  # through CHANGES only
    assert not is_relevant(ITEMS[1], session, frozenset({"CHANGES"}))
    assert not is_relevant(ITEMS[2], session)


def test_scores_are_micro_precision_macro_recall_and_baselines_at_the_same_k() -> None:
    one, two, three = _commit(9, ("a.py",)), _commit(10, ("c.py", "CHANGES")), _commit(11, ("x",))
    runs = [
        (one, {"files": ["lrn-a", "lrn-b"]}),  # 1 of 2 relevant; recall 1/1
        (two, {"files": ["lrn-c"]}),  # 1 of 1; recall 1/3 (a, b via CHANGES, c)
        (three, {"files": []}),  # nothing injected, nothing relevant stored
    ]
    found = outcomes("files", runs, ITEMS, BM25([i.content for i in ITEMS]))
    assert found is not None
    assert [len(o.recency) for o in found] == [2, 1, 0]
    assert [i.id for i in found[0].recency] == ["lrn-c", "lrn-b"]  # most recent first
    got = score("files", found, ITEMS)
    assert got.sessions == 3 and got.coverage == pytest.approx(2 / 3)
    assert got.items_per_session == pytest.approx(1.0)
    assert got.precision == pytest.approx(2 / 3)
    assert got.recall == pytest.approx((1 + 1 / 3) / 2)
    assert got.recency_precision == pytest.approx(1 / 3)  # c, b for one; c for two
    assert got.recency_recall == pytest.approx((0 + 1 / 3) / 2)
    assert got.bm25_precision is None  # BM25 is the prompt mode's baseline
    assert ground([one, two, three], ITEMS) == Ground(2, 4 / 3)
    # the broadest items at the same K: b, a for one (a is relevant); b for two (by CHANGES)
    assert [i.id for i in found[0].broadest] == ["lrn-b", "lrn-a"]
    assert got.broadest_precision == pytest.approx(2 / 3)
    no_hubs = score("files", found, ITEMS, frozenset({"CHANGES"}))
    assert no_hubs.recall == pytest.approx((1 + 1) / 2)
    assert no_hubs.broadest_precision == pytest.approx(1 / 3)


def test_a_missing_hook_scores_not_available() -> None:
    runs = [(_commit(9, ("a.py",)), {"file-triggered": None})]
    found = outcomes("file-triggered", runs, ITEMS, BM25([i.content for i in ITEMS]))
    assert found is None
    got = score("file-triggered", found, ITEMS)
    assert got.sessions == 0 and got.precision is None
    rendered = table([got, score("clean", [], ITEMS)])
    assert "file-triggered" in rendered and "n/a" in rendered


def test_bm25_ranks_the_matching_text_first() -> None:
    index = BM25([i.content for i in ITEMS])
    scores = index.scores("retry counter wrong")
    assert scores[0] > 0 and scores[1] == 0
    assert [i.id for i in bm25_top(ITEMS, index, "user cache keys", 1)] == ["lrn-b"]
    assert [i.id for i in recency_top(ITEMS, 2)] == ["lrn-c", "lrn-b"]


def test_injected_items_are_read_from_the_context_block() -> None:
    items = {i.id: i for i in ITEMS}
    context = (
        "<kgraph-context>\nkgraph project memory for 1 changed file.\n\n## General\n"
        "- Learning [lrn-b] (in changed file b.py): cache keys include the user id\n"
        "- Learning [lrn-zzz] (elsewhere): not a stored item\n"
        "- Learning: the parser reads the header first, said without its id\n"
        "- Learning [lrn-b]: repeated\n</kgraph-context>"
    )
    assert injected_ids(context, items) == ["lrn-b", "lrn-c"]
    contract = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}
    )
    assert additional_context(contract) == context
    assert additional_context("") == ""


@pytest.mark.slow
def test_replay_of_a_small_repository_runs_every_mode(repo: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    exe = str(Path(sys.executable).with_name("kgraph"))
    report = replay_bench.replay(str(repo), work, exe, 2, 0, 0.75, 0.25, graph=True, progress=False)
    assert (report.commits, report.learnings, report.stored, report.sessions) == (8, 3, 3, 2)
    assert "CHANGES" in report.hubs
    assert {"session-start", "user-prompt"} <= set(report.hooks)
    by_subject = {s.subject: s for s in read_history(repo)}
    cache_session = report.injected[by_subject["More cache keys in b"].sha]
    b_item = next(
        i for i, sha in report.item_commits.items() if sha == by_subject["Cache keys in b"].sha
    )
    assert b_item in (cache_session["files"] or [])  # b.py modified: its learning is injected
    assert set(cache_session) == set(MODES)
    scores = {s.mode: s for s in report.scores}
    assert scores["files"].sessions == 2 and scores["files"].coverage == 1.0
    assert scores["files"].precision is not None and scores["files"].precision > 0
    assert (scores["file-triggered"].sessions == 0) == ("post-tool-use" not in report.hooks)
    assert "relevance = shares a changed file other than a hub file" in replay_bench.render(report)
    assert not (repo / ".claude").exists()  # the origin repository is never written


def test_a_commit_s_change_is_its_hunks_and_the_definitions_they_touch(tmp_path: Path) -> None:
    from replay_symbols import commit_change

    root = _new_repo(tmp_path / "r")
    old = "class Region:\n    def get_or_create(self):\n        return 1\n\n    def run(self):\n"
    old += "        return 2\n"
    (root / "region.py").write_text(old)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    (root / "region.py").write_text(old.replace("return 1", "return 10"))
    _git(root, "commit", "-q", "-am", "two")
    [_, second] = read_history(root)
    change = commit_change(root, second)
    assert change.symbols == {"Region", "get_or_create"}  # "run" is too short to tell
    assert change.file_names == {"region.py"}
    [hunk] = change.hunks
    assert (hunk.old.strip(), hunk.new.strip()) == ("return 1", "return 10")
    assert change.named_by("Region.get_or_create holds a lock")
    assert change.named_by("see region.py") and not change.named_by("regional settings")
    assert second.date is not None and learning_record(second)["created_at"] == second.date


def test_finer_relevance_is_scored_beside_the_no_ranking_baselines() -> None:
    from replay_scoring import broadest_top, fine_outcome, fine_score, fine_table, newest_about

    items = [*ITEMS, _item("d", 4, ("a.py", "b.py", "c.py"), "touches everything")]
    assert [i.id for i in broadest_top(items, 1)] == ["lrn-d"]
    assert [i.id for i in newest_about(items, "a.py", 2, set())] == ["lrn-d", "lrn-a"]
    session = _commit(9, ("a.py",))

    def names(text: str) -> bool:
        return "retry" in text

    found = fine_outcome(
        "edit", session, names, ["lrn-a"], [("a.py", ["lrn-a"])], items, BM25(["x"] * 4)
    )
    assert [i.id for i in found.newest_file or ()] == ["lrn-d"]  # the newest about a.py
    got = fine_score("edit", [found])
    assert (got.symbol, got.file, got.newest_symbol, got.newest_file) == (1.0, 1.0, 0.0, 1.0)
    assert got.bm25_symbol is None and "edit" in fine_table([got])
