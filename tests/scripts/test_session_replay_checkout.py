"""session_replay_checkout: a replayed session starts on the commit whose files read as the
session's own Reads showed them."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from session_replay_checkout import best_seen, candidates, read_lines, seen_files
from session_replay_lib import read_plan

from tests.capture.transcript_builder import TranscriptBuilder


def _numbered(*lines: str) -> str:
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, 1))


def test_a_read_result_gives_its_numbered_lines_and_nothing_else() -> None:
    result = _numbered("package main", "", "func Run() {}  ") + "\n\n<system-reminder>x"
    assert read_lines(result) == {1: "package main", 2: "", 3: "func Run() {}"}
    assert read_lines("    41\told tab form") == {41: "old tab form"}
    assert read_lines("File does not exist.") == {}


def test_what_a_file_held_is_known_only_until_the_session_changes_it() -> None:
    seen = seen_files(
        [
            ("Read", "a.go", _numbered("one", "two")),
            ("Edit", "a.go", "ok"),
            ("Read", "a.go", _numbered("ONE", "two")),  # its own edit, not the checkout
            ("Read", "b.go", "    10→ten"),
            ("Read", "b.go", "    11→eleven"),
        ]
    )
    assert seen == {"a.go": {1: "one", 2: "two"}, "b.go": {10: "ten", 11: "eleven"}}


def _git(repo: Path, *args: str, when: str = "2026-02-01T10:00:00+00:00") -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def _commit(repo: Path, files: dict[str, str], when: str) -> str:
    for path, text in files.items():
        (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"at {when}", when=when)
    return _git(repo, "rev-parse", "HEAD")


def _history(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    shas = [
        _commit(repo, {"a.go": "func Old() {}\n", "b.go": "b1\n"}, "2026-02-01T10:00:00+00:00"),
        _commit(repo, {"b.go": "b2\n"}, "2026-02-02T10:00:00+00:00"),
        _commit(repo, {"a.go": "func New() {}\n"}, "2026-02-03T10:00:00+00:00"),
    ]
    return repo, shas


def test_a_session_on_an_older_branch_starts_where_its_reads_match(tmp_path: Path) -> None:
    repo, (first, second, third) = _history(tmp_path)
    shas = candidates(repo, datetime(2026, 2, 4, tzinfo=UTC))
    assert shas == [third, second, first]
    # It read a.go before the rename and b.go after b2: only the second commit holds both.
    seen = {"a.go": {1: "func Old() {}"}, "b.go": {1: "b2"}}
    assert best_seen(repo, shas, seen) == second


def test_the_newest_commit_stays_unless_an_older_one_matches_better(tmp_path: Path) -> None:
    repo, (first, second, third) = _history(tmp_path)
    shas = [third, second, first]
    assert best_seen(repo, shas, {}) == third  # nothing read: where replays always started
    # A file none of them holds (the session's own uncommitted work) moves nothing.
    assert best_seen(repo, shas, {"a.go": {1: "func Mine() {}"}, "c.go": {1: "x"}}) == third
    # Ties go to the newest: b.go read as "b2" is held by the second and the third.
    assert best_seen(repo, shas, {"b.go": {1: "b2"}}) == third


def test_a_plan_keeps_what_its_reads_showed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    path = (
        TranscriptBuilder("s1", str(repo))
        .prompt("why is Old still called?")
        .tool("Read", {"file_path": str(repo / "a.go")}, _numbered("func Old() {}"))
        .write(tmp_path / "t.jsonl")
    )
    plan = read_plan(path)
    assert plan is not None and plan.seen == {"a.go": {1: "func Old() {}"}}
