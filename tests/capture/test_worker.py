from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.capture import worker
from kgraph.capture.sessions import find_session, get_session
from kgraph.db import open_database
from kgraph.knowledge.query import list_items
from kgraph.runtime import queue
from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import TranscriptBuilder


@pytest.fixture
def repo_db(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    return f"sqlite:///{tmp_repo / '.claude' / 'execution-state.db'}"


def test_worker_applies_starts_then_captures(
    tmp_repo: Path, repo_db: str, git: Callable[..., str], tmp_path: Path
) -> None:
    head = git(tmp_repo, "rev-parse", "HEAD").strip()
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("Remember this: staging resets nightly at 2am.")
        .write(tmp_path / "t.jsonl")
    )
    queue.enqueue(
        tmp_repo,
        "start",
        session_id="s1",
        cwd=str(tmp_repo),
        head=head,
        branch="main",
        injected_ids=["lrn-x"],
        transcript_path=str(path),
    )
    queue.enqueue(tmp_repo, "capture", session_id="s1", transcript_path=str(path), final=False)
    queue.enqueue(tmp_repo, "capture", session_id="s1", transcript_path=str(path), final=True)
    report = worker.run_worker(tmp_repo)
    assert report.captured == ["s1"] and report.created == 1 and report.failed == 0
    db = open_database(repo_db)
    record = get_session(db, "s1")
    assert record.head_at_start == head and record.injected_ids == ("lrn-x",)
    assert record.ended_at is not None  # one of the coalesced requests was final
    assert queue.pending(tmp_repo) == []
    assert not list((tmp_repo / ".claude" / "kgraph" / "queue").glob("*claimed*"))
    db.close()


def test_a_session_s_end_embeds_what_was_captured_unless_turned_off(
    tmp_repo: Path, repo_db: str, tmp_path: Path
) -> None:
    def capture(sid: str, final: bool) -> list[str | None]:
        path = (
            TranscriptBuilder(sid, str(tmp_repo))
            .prompt(f"Remember this: service {sid} listens on port 8001 only.")
            .write(tmp_path / f"{sid}.jsonl")
        )
        queue.enqueue(tmp_repo, "capture", session_id=sid, transcript_path=str(path), final=final)
        worker.run_worker(tmp_repo)
        db = open_database(repo_db)
        try:
            items = list_items(db, include_superseded=True)
            return [i.embedding_model for i in items if i.session_id == sid]
        finally:
            db.close()

    assert capture("mid", final=False) == [None]  # a Stop: the session goes on
    assert capture("end", final=True) == ["kgraph-hash-384"]  # KGRAPH_EMBEDDER=fake here
    (tmp_repo / ".claude" / "kgraph.toml").write_text("[capture]\nembed_captured = false\n")
    assert capture("off", final=True) == [None]


def test_a_failing_capture_is_retried_then_dropped(
    tmp_repo: Path, repo_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def broken(*args: object, **kwargs: object) -> None:
        calls.append("x")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("kgraph.capture.session_capture.capture_session", broken)
    queue.enqueue(tmp_repo, "capture", session_id="s1")
    worker.run_worker(tmp_repo)
    assert len(queue.pending(tmp_repo)) == 1  # queued again for a later worker
    worker.run_worker(tmp_repo)
    worker.run_worker(tmp_repo)
    assert queue.pending(tmp_repo) == [] and len(calls) == worker.MAX_ATTEMPTS
    assert "disk on fire" in (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()


def test_catch_up_captures_earlier_transcripts_never_captured(
    tmp_repo: Path, repo_db: str, tmp_path: Path
) -> None:
    projects = (
        Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_dir(str(tmp_repo))
    )
    old = (
        TranscriptBuilder("old-1", str(tmp_repo))
        .prompt("Never edit the generated protobuf files by hand.")
        .write(projects / "old-1.jsonl")
    )
    (
        TranscriptBuilder("live-1", str(tmp_repo))
        .prompt("Always keep the changelog sorted by date.")
        .write(projects / "live-1.jsonl")
    )
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo), current_session="current")
    report = worker.run_worker(tmp_repo)
    assert report.captured == ["old-1"]  # live-1 was written just now: probably running
    db = open_database(repo_db)
    assert [i.content for i in list_items(db, include_superseded=True)] == [
        "Rule from the user: Never edit the generated protobuf files by hand."
    ]
    assert get_session(db, "old-1").transcript_offset == old.stat().st_size
    assert find_session(db, "live-1") is None
    db.close()
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo))
    assert worker.run_worker(tmp_repo).captured == []  # nothing new to catch up
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "catch-up captured 1 earlier session(s) of this project; 0 older than 30 days" in log
    from kgraph.runtime.notice import take_catchup

    line = take_catchup(tmp_repo)  # the next briefing's header says it, once
    assert line is not None and "captured 1 earlier session(s)" in line
    assert take_catchup(tmp_repo) is None


def test_catch_up_keeps_to_its_window_and_says_what_it_left_out(
    tmp_repo: Path, repo_db: str
) -> None:
    projects = (
        Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_dir(str(tmp_repo))
    )
    old = (
        TranscriptBuilder("old-2", str(tmp_repo))
        .prompt("Never edit the generated protobuf files by hand.")
        .write(projects / "old-2.jsonl")
    )
    three_days_ago = time.time() - 3 * 86_400
    os.utime(old, (three_days_ago, three_days_ago))
    (tmp_repo / ".claude").mkdir(exist_ok=True)
    (tmp_repo / ".claude" / "kgraph.toml").write_text("[capture]\ncatchup_max_age_days = 2\n")
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo), current_session="current")
    assert worker.run_worker(tmp_repo).captured == []
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "0 earlier session(s) of this project; 1 older than 2 days left out" in log


def test_worker_main_never_raises_and_lowers_its_priority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    niceness: list[int] = []
    monkeypatch.setattr(worker.os, "nice", niceness.append)
    assert worker.main(["--root", str(tmp_path)]) == 0
    assert niceness == [10]


def test_one_worker_per_project(tmp_repo: Path, repo_db: str) -> None:
    from kgraph.runtime.lock import worker_lock

    queue.enqueue(tmp_repo, "start", session_id="s1", cwd=str(tmp_repo))
    with worker_lock(tmp_repo) as held:
        assert held
        with worker_lock(tmp_repo) as second:
            assert not second
        assert worker.run_worker(tmp_repo).applied == 0  # another worker is running
    assert len(queue.pending(tmp_repo)) == 1
    assert worker.run_worker(tmp_repo).applied == 1


def test_prune_state_removes_old_locks_and_stamps(tmp_path: Path) -> None:
    locks = tmp_path / ".claude" / "kgraph" / "locks"
    stamps = tmp_path / ".claude" / "kgraph" / "stamps"
    locks.mkdir(parents=True)
    stamps.mkdir(parents=True)
    old_lock, new_lock, old_stamp = locks / "a.lock", locks / "b.lock", stamps / "a.stop"
    for path in (old_lock, new_lock, old_stamp):
        path.touch()
    week_ago = time.time() - 8 * 86_400
    for path in (old_lock, old_stamp):
        os.utime(path, (week_ago, week_ago))
    assert worker.prune_state(tmp_path) == 2
    assert [p.name for p in locks.iterdir()] == ["b.lock"]


def test_on_a_server_the_worker_refreshes_the_hooks_copy(
    tmp_repo: Path, repo_db: str, pg_server: Any
) -> None:
    from kgraph.db.mirror import mirror_age
    from kgraph.knowledge.store import add_item

    url = pg_server.fresh_url()
    server = open_database(url)
    add_item(server, "the importer skips hidden files", files=["src/importer.py"])
    server.close()
    folder = tmp_repo / ".claude" / "kgraph"

    queue.enqueue(tmp_repo, "refresh")
    report = worker.run_worker(tmp_repo, db_url=url)
    assert report.failed == 0 and queue.pending(tmp_repo) == []
    age = mirror_age(folder, url)
    assert age is not None and age < 60
    copy = open_database(f"sqlite:///{folder / 'mirror.db'}")
    assert [i.content for i in list_items(copy)] == ["the importer skips hidden files"]
    copy.close()

    # On SQLite there is nothing to copy: the request is done, no copy is made.
    (folder / "mirror.db").unlink()
    queue.enqueue(tmp_repo, "refresh")
    assert worker.run_worker(tmp_repo).failed == 0
    assert queue.pending(tmp_repo) == [] and not (folder / "mirror.db").exists()


def test_requests_wait_for_a_database_out_of_reach_and_are_never_dropped(
    tmp_repo: Path, repo_db: str, tmp_path: Path
) -> None:
    nowhere = f"postgresql+psycopg://kgraph@/kgraph?host={tmp_path}/gone&connect_timeout=2"
    queue.enqueue(tmp_repo, "start", session_id="s1", cwd=str(tmp_repo), injected_ids=[])
    queue.enqueue(tmp_repo, "injected", session_id="s1", injected_ids=["lrn-x"])
    for _ in range(worker.MAX_ATTEMPTS + 2):  # a hook's worker each, all while offline
        assert worker.run_worker(tmp_repo, db_url=nowhere).failed == 1
    assert len(queue.pending(tmp_repo)) == 2
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "cannot open the database" in log and "dropping" not in log

    report = worker.run_worker(tmp_repo)  # back online
    assert report.failed == 0 and report.applied == 2 and queue.pending(tmp_repo) == []
    db = open_database(repo_db)
    assert get_session(db, "s1").injected_ids == ("lrn-x",)
    db.close()


def test_a_capture_whose_server_connection_dies_waits_without_spending_attempts(
    tmp_repo: Path, tmp_path: Path, pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server ends the worker's connection inside its write, three workers running: the
    request stays queued (no attempt spent, the user told), and the fourth applies it."""
    from kgraph.capture import session_capture

    url = pg_server.fresh_url()
    real = session_capture.capture_session
    killed: list[int] = []

    def connection_killed(db: Any, *args: Any, **kwargs: Any) -> Any:
        if len(killed) < 3:
            write = db.write

            def killing_write(operation: Callable[[Any], Any]) -> Any:
                def inside(conn: Any) -> Any:
                    pid = conn.connection.dbapi_connection.info.backend_pid
                    pg_server.sql(f"SELECT pg_terminate_backend({pid})")
                    killed.append(pid)
                    return operation(conn)

                return write(inside)

            db.write = killing_write
        return real(db, *args, **kwargs)

    monkeypatch.setattr(session_capture, "capture_session", connection_killed)
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("Remember this: the staging database resets nightly at 2am.")
        .write(tmp_path / "t.jsonl")
    )
    queue.enqueue(tmp_repo, "capture", session_id="s1", transcript_path=str(path), final=True)
    for _ in range(3):
        assert worker.run_worker(tmp_repo, db_url=url).failed == 1
        assert len(queue.pending(tmp_repo)) == 1
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert log.count("worker lost the database") == 3 and "dropping" not in log
    assert "server cannot be reached" in log
    report = worker.run_worker(tmp_repo, db_url=url)
    assert report.failed == 0 and report.captured == ["s1"] and report.created == 1
    assert queue.pending(tmp_repo) == [] and len(killed) == 3


def test_catch_up_learns_the_history_s_new_commits_unless_turned_off(
    tmp_repo: Path, repo_db: str, git: Callable[..., str]
) -> None:
    def commit(path: str, message: str) -> None:
        (tmp_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_repo / path).write_text(message)
        git(tmp_repo, "add", path)
        git(tmp_repo, "commit", "-q", "-m", message)

    why = "The pool closed idle sockets because the server drops them after 30 s."
    commit("src/pool.py", f"fix: close idle sockets\n\n{why}")  # a teammate's, merged
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo), current_session="current")
    worker.run_worker(tmp_repo)
    db = open_database(repo_db)
    assert [i.files for i in list_items(db)] == [("src/pool.py",)]
    db.close()
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo), current_session="current")
    worker.run_worker(tmp_repo)  # known commits are not learned twice
    (tmp_repo / ".claude" / "kgraph.toml").write_text("[capture]\nlearn_history = false\n")
    commit("src/retry.py", f"fix: retry once\n\n{why} Retrying once reconnects.")
    queue.enqueue(tmp_repo, "catchup", cwd=str(tmp_repo), current_session="current")
    worker.run_worker(tmp_repo)
    db = open_database(repo_db)
    assert len(list_items(db)) == 1
    db.close()
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert log.count("catch-up learned 1 item(s) from") == 1
