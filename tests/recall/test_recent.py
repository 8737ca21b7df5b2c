"""The project's recent history: the commits a prompt's matches are trusted for."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgraph.recall import recent
from kgraph.recall.provenance import FromCommit
from kgraph.recall.recent import SHA_KEPT, LatestChanges, is_recent
from kgraph.runtime.seen import Recent

STEPS = 5  # the project's latest changes, as a setting may say


def _commits(git: Callable[..., str], repo: Path, count: int, prefix: str) -> list[str]:
    shas = []
    for i in range(count):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"{prefix} {i}")
        shas.append(git(repo, "rev-parse", "HEAD").strip())
    return shas


def test_the_latest_steps_bring_their_commits_a_merged_branchs_included(
    tmp_repo: Path, git: Callable[..., str]
) -> None:
    old = _commits(git, tmp_repo, STEPS, "old")
    git(tmp_repo, "checkout", "-q", "-b", "topic", old[0])  # written long ago ...
    topic = _commits(git, tmp_repo, 2, "topic")
    git(tmp_repo, "checkout", "-q", "main")
    latest = _commits(git, tmp_repo, STEPS - 2, "new")
    git(tmp_repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")  # ... merged now
    merge = git(tmp_repo, "rev-parse", "HEAD").strip()
    latest += _commits(git, tmp_repo, 1, "last")
    found = LatestChanges(tmp_repo, STEPS).found(timeout=5.0)
    assert found is not None
    assert found.shas == {s[:SHA_KEPT] for s in [*latest, merge, *topic]}
    assert not found.shas & {s[:SHA_KEPT] for s in old}
    assert found.since == float(git(tmp_repo, "log", "-1", "--format=%ct", old[-1]).strip())


def test_a_history_shorter_than_the_steps_says_nothing(
    tmp_repo: Path, git: Callable[..., str]
) -> None:
    _commits(git, tmp_repo, 3, "young")
    assert LatestChanges(tmp_repo, STEPS).found(timeout=5.0) is None
    assert LatestChanges(tmp_repo.parent, STEPS).found(timeout=5.0) is None  # no repository


def test_only_items_learned_from_older_commits_are_held_back() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    other = "fedcba9876543210fedcba9876543210fedcba98"
    long_ago, lately = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)
    learned = {
        "lrn-new": FromCommit(sha, long_ago),  # a branch written long ago, merged lately
        "lrn-old": FromCommit(other, long_ago),
        "lrn-short": FromCommit(sha[:8], None),
        "lrn-rebased": FromCommit("abcdef0", lately),  # a session's own, rebased since
    }
    recent = Recent(datetime(2026, 2, 1, tzinfo=UTC).timestamp(), frozenset({sha[:SHA_KEPT]}))
    assert is_recent("lrn-new", learned, recent)
    assert is_recent("lrn-short", learned, recent)  # a short sha an item recorded
    assert is_recent("lrn-rebased", learned, recent)
    assert not is_recent("lrn-old", learned, recent)
    assert is_recent("mis-1", learned, recent)  # not learned from a commit
    assert is_recent("lrn-old", learned, None)  # the latest changes are not known


def test_a_merge_of_thousands_keeps_the_newest_commits_only(
    tmp_repo: Path, git: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recent, "MAX_SHAS", 3)
    made = _commits(git, tmp_repo, STEPS + 1, "change")
    found = LatestChanges(tmp_repo, STEPS).found(timeout=5.0)
    assert found is not None and found.shas == {s[:SHA_KEPT] for s in made[-3:]}
