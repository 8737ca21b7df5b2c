"""What the worker does once its queue is drained: here, the code graph after a session."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kgraph.capture import worker
from kgraph.capture.upkeep import refresh_graph
from kgraph.codegraph import has_graph, parse_repository, what_calls
from kgraph.db import open_database
from kgraph.runtime import queue
from tests.capture.transcript_builder import TranscriptBuilder


def _callers(url: str, name: str) -> list[str]:
    db = open_database(url)
    try:
        return [c.caller.name for c in what_calls(db, name)[1]]
    finally:
        db.close()


@pytest.fixture
def url(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The project's database (where the worker finds it), its graph parsed from app.py."""
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    url = f"sqlite:///{tmp_repo / '.claude' / 'execution-state.db'}"
    (tmp_repo / "app.py").write_text("def load():\n    return 1\n")
    db = open_database(url)
    parse_repository(db, tmp_repo, root=tmp_repo)
    db.close()
    return url


def test_a_session_s_end_re_parses_what_it_changed_into_the_graph(
    tmp_repo: Path, tmp_path: Path, url: str
) -> None:
    # The session wrote a caller of load(); the worker sees its end.
    (tmp_repo / "app.py").write_text("def load():\n    return 1\n\n\ndef main():\n    load()\n")
    path = TranscriptBuilder("s1", str(tmp_repo)).prompt("add main").write(tmp_path / "t.jsonl")
    queue.enqueue(tmp_repo, "capture", session_id="s1", transcript_path=str(path), final=False)
    worker.run_worker(tmp_repo)
    assert _callers(url, "load") == []  # a Stop: the session goes on
    queue.enqueue(tmp_repo, "capture", session_id="s1", transcript_path=str(path), final=True)
    worker.run_worker(tmp_repo)
    assert _callers(url, "load") == ["main"]
    assert (
        "code graph refreshed: 1 files: 0 added, 1 changed"
        in (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    )


def test_a_session_s_start_re_parses_what_a_checkout_changed(tmp_repo: Path, url: str) -> None:
    # A pull between sessions brought a caller of load(): the next session's first prompt
    # may name it.
    (tmp_repo / "cli.py").write_text("from app import load\n\n\ndef run():\n    load()\n")
    queue.enqueue(tmp_repo, "start", session_id="s2", cwd=str(tmp_repo))
    worker.run_worker(tmp_repo)
    assert _callers(url, "load") == ["run"]


def test_without_a_graph_none_is_made_and_a_failure_is_logged(
    tmp_repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_repo / "app.py").write_text("def load():\n    return 1\n")
    log = logging.getLogger("test.upkeep")
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    try:
        refresh_graph(db, tmp_repo, log)
        assert not has_graph(db)  # the user never asked for one
        parse_repository(db, tmp_repo, root=tmp_repo)
        with caplog.at_level(logging.ERROR, logger="test.upkeep"):
            refresh_graph(db, tmp_repo / "gone", log)
        assert "refreshing the code graph failed" in caplog.text
    finally:
        db.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_team_server_s_graph_is_left_to_whoever_parses_it(
    tmp_repo: Path, db_url: str, backend: str
) -> None:
    (tmp_repo / "app.py").write_text("def load():\n    return 1\n")
    db = open_database(db_url)
    try:
        parse_repository(db, tmp_repo, root=tmp_repo)
        # A member's checkout differs: their session start must not rewrite the one graph.
        (tmp_repo / "app.py").write_text("def load():\n    return 1\n\n\ndef main():\n    load()\n")
        refresh_graph(db, tmp_repo, logging.getLogger("test.upkeep"))
        assert what_calls(db, "load")[1] == []
    finally:
        db.close()
