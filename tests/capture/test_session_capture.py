from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kgraph.capture.session_capture import CARRY_ENTRIES, capture_session
from kgraph.capture.sessions import get_session, record_session_start
from kgraph.db import Database
from kgraph.db.reader import parse_time
from kgraph.knowledge.query import list_items
from kgraph.knowledge.records import KnowledgeItem, item_edges
from tests.capture.transcript_builder import TranscriptBuilder

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def stored(db: Database) -> list[KnowledgeItem]:
    """Every item capture stored, candidates (hidden until corroborated) included."""
    return list_items(db, limit=1000, include_superseded=True)


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
        .prompt(
            f"Fix the failing config tests on Windows. "
            f"Remember this: the CI token {TOKEN} is rotated monthly."
        )
        .error_fix(tmp_repo)
        .say(
            "The issue was that `load_config` opened the file with the locale encoding, "
            "so non-ASCII values crashed on Windows; it now reads UTF-8."
        )
        .write(tmp_path / "t.jsonl")
    )
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    items = {i.id: i for i in stored(db)}
    assert set(result.created) == set(items)
    assert sorted(i.type for i in items.values()) == [
        "Learning",  # the commit
        "Learning",  # the rule the user stated
        "Mistake",  # the failure and the edit after which the command passed
        "Mistake",  # the cause the agent explained
        "Topic",
    ]
    assert all(i.issue_number == 9 and i.session_id == "s1" for i in items.values())
    assert not any(TOKEN in i.content for i in items.values())  # redacted
    commit_item = next(i for i in items.values() if i.source == "commit")
    assert commit_item.files == ("src/config.py",) and "Config" in commit_item.code_areas
    cause = next(i for i in items.values() if "locale encoding" in i.content)
    assert cause.type == "Mistake" and cause.files == ("src/config.py",)  # its turn's edit
    fix = next(i for i in items.values() if "fixed by changing" in i.content)
    assert "`open(p)` to `open(p, encoding='utf-8')` in `src/config.py`" in fix.content
    assert not any(str(tmp_repo) in i.content for i in items.values())
    topic = next(i for i in items.values() if i.type == "Topic")
    _, edges = item_edges(db, topic.id)
    part_of = {e.other_id for e in edges if e.type == "PART_OF" and e.direction == "in"}
    assert part_of == set(items) - {topic.id}

    record = get_session(db, "s1")
    assert [f["subject"] for f in record.data["commit_facts"]] == ["docs: tweak"]
    assert record.data["files_edited"] == ["src/config.py"]
    assert record.transcript_offset == transcript.stat().st_size
    assert record.ended_at is not None and record.data["head_at_end"]

    again = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    assert again.created == () and again.reinforced == ()
    assert {i.id: i.seen_count for i in stored(db)} == {i: v.seen_count for i, v in items.items()}


def test_an_item_another_session_stored_is_reinforced_once_even_if_the_capture_reruns(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    rule = "Never log the raw request body of `PaymentHandler`, it holds card numbers."
    for sid in ("a", "b"):
        path = TranscriptBuilder(sid, str(tmp_repo)).prompt(rule).write(tmp_path / f"{sid}.jsonl")
        capture_session(db, tmp_repo, sid, transcript_path=str(path), final=True)
    capture_session(db, tmp_repo, "b", transcript_path=str(path), final=True)
    (item,) = [i for i in stored(db) if i.type == "Pattern"]
    assert item.seen_count == 2


def test_a_near_duplicate_about_the_same_file_reinforces_the_stored_item(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    said = (
        "The issue was that `parse_header` in src/http.py splits on every colon, so a value "
        "with a colon in it (a URL) was cut."
    )
    for sid, text in (("a", said), ("b", said.replace("was cut", "was cut short"))):
        path = (
            TranscriptBuilder(sid, str(tmp_repo))
            .prompt("why are redirects broken?")
            .tool("Read", {"file_path": str(tmp_repo / "src/http.py")}, "def parse_header(x):")
            .say(text)
            .write(tmp_path / f"{sid}.jsonl")
        )
        capture_session(db, tmp_repo, sid, transcript_path=str(path), final=True)
    (mistake,) = [i for i in stored(db) if i.type == "Mistake"]
    assert mistake.seen_count == 2 and mistake.files == ("src/http.py",)


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
    assert "ruff" in next(i.content for i in stored(db) if i.id == second.created[0])
    # The file was rewritten from scratch (e.g. shrank): read again from 0, store nothing new.
    path.write_text(builder.text()[: len(builder.text()) // 2])
    third = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    assert third.created == () and third.reinforced == ()


def test_an_explanation_is_read_with_the_turn_it_belongs_to(
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
    assert capture_session(db, tmp_repo, "s1", transcript_path=str(path)).created == ()
    builder.say(
        "The issue is that `config_loader` imports yaml, which is not a dependency, "
        "so every test that loads a config fails."
    )
    builder.prompt("thanks")
    builder.write(path)
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    types = sorted(i.type for i in stored(db) if i.id in result.created)
    assert types == ["Mistake"]  # one item is not worth a Topic


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


def test_no_item_or_session_row_keeps_a_home_path(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    """A transcript from another machine: its cwd is mapped onto the repo, homes masked."""
    cwd = "/Users/ann/work/shop"
    path = (
        TranscriptBuilder("s1", cwd)
        .prompt("why does checkout crash?")
        .tool("Read", {"file_path": f"{cwd}/src/cart.py"}, "def total(items):")
        .say(
            "Found it. `total` in /Users/ann/work/shop/src/cart.py sums prices as floats, so "
            "the rounding differs from /Users/ann/.config/shop/rates.json by a cent."
        )
        .compaction("This session is being continued. Key: read /home/ann/notes.txt first.")
        .write(tmp_path / "t.jsonl")
    )
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    record = get_session(db, "s1")
    items = stored(db)
    assert any(i.files == ("src/cart.py",) and "src/cart.py" in i.content for i in items)
    texts = " ".join(i.content for i in items) + repr(record.to_dict())
    raw = db.read(lambda conn: repr(conn.exec_driver_sql("SELECT * FROM sessions").all()))
    for text in (texts, raw):
        assert "/Users/" not in text and "/home/ann" not in text


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
    assert stored(db) == []  # the commit is from now, the transcript from 2026-11-20 10:00


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
    assert [i.issue_number for i in stored(db) if i.id in result.created] == [314]


def _session_with_knowledge(repo: Path, git: Callable[..., str], path: Path) -> Path:
    commit(
        repo,
        git,
        "src/config.py",
        "fix(config): read config as UTF-8 because Windows defaults to cp1252\n\n"
        "The loader used the locale encoding and crashed on non-ASCII values.",
    )
    return (
        TranscriptBuilder("s1", str(repo), "feat/9-cfg")
        .prompt("Fix the failing config tests on Windows.")
        .error_fix(repo)
        .say(
            "The issue was that `load_config` opened the file with the locale encoding, "
            "so non-ASCII values crashed on Windows; it now reads UTF-8."
        )
        .write(path)
    )


def test_a_crash_between_the_item_writes_and_the_watermark_writes_nothing(
    db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The items and the session row (watermark, refs) are one transaction: a failure after
    the items were written but before the session was updated leaves neither, so the re-run
    counts every item once (seen_count 1, never 2)."""
    from kgraph.capture import sessions

    start(db, tmp_repo, git)
    transcript = _session_with_knowledge(tmp_repo, git, tmp_path / "t.jsonl")
    real = sessions.change_session
    calls: list[str] = []

    def crash_on_the_watermark(conn: Any, session_id: str, change: Any) -> Any:
        calls.append(session_id)
        if conn.in_transaction() and len(calls) == 1:
            raise RuntimeError("killed between the item writes and the watermark")
        return real(conn, session_id, change)

    monkeypatch.setattr(sessions, "change_session", crash_on_the_watermark)
    with pytest.raises(RuntimeError, match="killed between"):
        capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    assert [i for i in stored(db) if i.type != "Topic"] == []
    assert get_session(db, "s1").transcript_offset == 0
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    items = stored(db)
    assert result.created and len(items) == len(result.created)
    assert {i.seen_count for i in items} == {1}
    again = capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    assert again.created == () and {i.seen_count for i in stored(db)} == {1}


def test_a_crash_after_the_capture_committed_counts_nothing_twice(
    db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kgraph.capture import metrics

    start(db, tmp_repo, git)
    transcript = _session_with_knowledge(tmp_repo, git, tmp_path / "t.jsonl")

    def crash(*_args: Any) -> None:
        raise RuntimeError("killed after the commit")

    monkeypatch.setattr(metrics, "update_session_metrics", crash)
    with pytest.raises(RuntimeError):
        capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    before = {i.id: i.seen_count for i in stored(db)}
    assert before and set(before.values()) == {1}
    monkeypatch.undo()
    capture_session(db, tmp_repo, "s1", transcript_path=str(transcript), final=True)
    assert {i.id: i.seen_count for i in stored(db)} == before


def test_a_later_batch_saying_the_same_cause_again_adds_nothing(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    first = (
        "The issue was that `parse_header` splits on every colon, so a header value holding "
        "a URL was cut at its scheme."
    )
    again = (
        "As found earlier, the issue was that `parse_header` splits on every colon, so any "
        "header value holding a URL gets cut at the scheme."
    )
    builder = TranscriptBuilder("s1", str(tmp_repo)).prompt("why are redirects broken?")
    builder.say(first).prompt("ok, go on")
    for n in range(CARRY_ENTRIES):  # the next batch re-reads none of the first one's turn
        builder.tool("Bash", {"command": f"curl -sI localhost:{8000 + n}"}, "HTTP/1.1 302")
    path = builder.write(tmp_path / "t.jsonl")
    created = capture_session(db, tmp_repo, "s1", transcript_path=str(path)).created
    builder.prompt("and the proxy headers?").say(again).prompt("thanks")
    builder.write(path)
    later = capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    (item,) = [i for i in stored(db) if i.type == "Mistake"]
    assert item.id in created and item.id in later.reinforced and not later.created
    assert item.seen_count == 1  # the same session saying it twice is one sighting


def _commit_learning_dates(db: Database) -> list[datetime | None]:
    rows = db.read(
        lambda conn: conn.exec_driver_sql(
            "SELECT created_at FROM entities WHERE source = 'commit' AND type = 'Learning'"
        ).all()
    )
    return [parse_time(r[0]) for r in rows]


def test_an_item_learned_from_a_sessions_commit_is_dated_by_the_commit(
    db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As the history's items are: how recent the commit is says whether a prompt's match
    # with it is trusted (kgraph.recall.recent), whenever its session is captured.
    start(db, tmp_repo, git)
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-02-03T04:05:06Z")
    commit(tmp_repo, git, "src/config.py", "fix(config): read config as UTF-8 because cp1252")
    path = TranscriptBuilder("s1", str(tmp_repo)).prompt("Fix it.").write(tmp_path / "t.jsonl")
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    assert _commit_learning_dates(db) == [datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)]


def test_a_commit_only_the_transcript_knows_is_dated_by_the_transcript(
    db: Database, tmp_repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    # Its sha is gone (rebased, another machine): the transcript's time stands for the
    # commit's, not the capture's (which may come days later, by catch-up).
    start(db, tmp_repo, git)
    command = (
        'git add src/config.py && git commit -m "fix(config): read config as UTF-8 because cp1252"'
    )
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("Fix it.")
        .tool("Bash", {"command": command}, "[main 0abc123] fix(config): read config\n 1 file")
        .write(tmp_path / "t.jsonl")
    )
    last = max(json.loads(line)["timestamp"] for line in path.read_text().splitlines())
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    assert _commit_learning_dates(db) == [parse_time(last)]
