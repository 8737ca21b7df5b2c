from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.capture.session_capture import capture_session
from kgraph.capture.sessions import get_session, record_session_start
from kgraph.db import Database
from kgraph.knowledge.query import item_edges, list_items
from tests.capture.transcript_builder import TranscriptBuilder

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def commit(repo: Path, git: Callable[..., str], name: str, message: str) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(message)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", message)


def start(db: Database, repo: Path, git: Callable[..., str], sid: str = "s1") -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    record_session_start(db, sid, cwd=str(repo), branch="feat/9-cfg", issue_number=9, head=head)


def test_capture_stores_knowledge_facts_and_links_and_is_idempotent(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    start(db, tmp_repo, git)
    commit(
        tmp_repo,
        git,
        "src/config.py",
        "fix(config): read config as UTF-8 because Windows defaults to cp1252\n\n"
        "The loader used the locale encoding and crashed on non-ASCII values.",
    )
    commit(tmp_repo, git, "docs/x.md", "docs: tweak")
    transcript = (
        TranscriptBuilder("s1", str(tmp_repo), "feat/9-cfg")
        .prompt(f"Fix the tests. Remember this: the CI token {TOKEN} is rotated monthly.")
        .error_fix(tmp_repo)
        .write(tmp_path / "t.jsonl")
    )
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    items = {i.id: i for i in list_items(db, limit=100)}
    assert set(result.created) == set(items)
    by_type = sorted(i.type for i in items.values())
    assert by_type == [
        "Learning",
        "Learning",
        "Learning",
        "Mistake",
    ]  # commit, fix, remember; error
    assert all(i.issue_number == 9 and i.session_id == "s1" for i in items.values())
    assert not any(TOKEN in i.content for i in items.values())  # redacted
    commit_item = next(i for i in items.values() if i.source == "commit")
    assert commit_item.files == ("src/config.py",) and "Config" in commit_item.code_areas
    mistake = next(i for i in items.values() if i.type == "Mistake")
    _, edges = item_edges(db, mistake.id)
    led_to = [e for e in edges if e.type == "LED_TO" and e.direction == "out"]
    assert len(led_to) == 1 and items[led_to[0].other_id].type == "Learning"

    record = get_session(db, "s1")
    assert [f["subject"] for f in record.data["commit_facts"]] == ["docs: tweak"]
    assert record.data["files_edited"] == ["src/config.py"]
    assert record.transcript_offset == transcript.stat().st_size
    assert record.ended_at is not None and record.data["head_at_end"]

    again = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    assert again.created == () and again.reinforced == ()
    assert {i.id: i.seen_count for i in list_items(db, limit=100)} == {
        i: v.seen_count for i, v in items.items()
    }


def test_capture_is_incremental_and_re_reading_adds_nothing(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    start(db, tmp_repo, git)
    builder = TranscriptBuilder("s1", str(tmp_repo)).prompt(
        "Always run the linter before committing code."
    )
    path = builder.write(tmp_path / "t.jsonl")
    first = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    assert len(first.created) == 1
    builder.prompt("From now on, use ruff instead of flake8 in this repository.")
    builder.write(path)
    second = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    assert len(second.created) == 1
    assert "ruff" in next(i.content for i in list_items(db) if i.id == second.created[0])
    # The file was rewritten from scratch (e.g. shrank): read again from 0, store nothing new.
    path.write_text(builder.text()[: len(builder.text()) // 2])
    third = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    assert third.created == () and third.reinforced == ()


def test_an_error_and_its_fix_in_different_batches_are_still_paired(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    start(db, tmp_repo, git)
    builder = TranscriptBuilder("s1", str(tmp_repo)).prompt("run the tests")
    builder.tool(
        "Bash",
        {"command": "pytest -x"},
        "FAILED test_a - ImportError: no module named yaml",
        error=True,
    )
    path = builder.write(tmp_path / "t.jsonl")
    capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    builder.tool("Bash", {"command": "pip install pyyaml"}, "Successfully installed pyyaml")
    builder.tool("Bash", {"command": "pytest -x"}, "3 passed")
    builder.write(path)
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    types = sorted(i.type for i in list_items(db) if i.id in result.created)
    assert types == ["Learning", "Mistake"]


def test_session_facts_are_redacted(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    start(db, tmp_repo, git)
    commit(tmp_repo, git, "a.txt", f"chore: set token {TOKEN}")
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .compaction(f"This session is being continued. The key is {TOKEN}.")
        .write(tmp_path / "t.jsonl")
    )
    capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    record = get_session(db, "s1")
    assert TOKEN not in str(record.data) and TOKEN not in (record.compaction_summary or "x")
    assert "REDACTED" in (record.compaction_summary or "")


def test_a_session_never_started_takes_commits_from_its_time_span(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    commit(tmp_repo, git, "old.py", "fix: old bug because of a stale cache in the loader")
    path = (
        TranscriptBuilder("s9", str(tmp_repo))
        .prompt("hello there friend")
        .write(tmp_path / "t.jsonl")
    )
    capture_session(db, tmp_repo, "s9", transcript_path=str(path), bounded=True)
    assert list_items(db) == []  # the commit is from now, the transcript from 2026-11-20 10:00


def test_a_session_never_started_takes_its_branch_from_the_transcript(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    path = (
        TranscriptBuilder("s7", str(tmp_repo), branch="fix/issue-314-crash")
        .prompt("Never log the raw request body, it holds card numbers.")
        .write(tmp_path / "t.jsonl")
    )
    result = capture_session(db, tmp_repo, "s7", transcript_path=str(path))
    record = get_session(db, "s7")
    assert record.branch == "fix/issue-314-crash" and record.issue_number == 314
    assert [i.issue_number for i in list_items(db) if i.id in result.created] == [314]
