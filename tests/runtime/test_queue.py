from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kgraph.runtime import queue


def test_enqueue_claim_finish(tmp_path: Path) -> None:
    queue.enqueue(tmp_path, "capture", session_id="s1", event="stop")
    queue.enqueue(tmp_path, "start", session_id="s2")
    claimed = queue.claim_all(tmp_path)
    assert [r.kind for r in claimed] == ["capture", "start"]  # oldest first
    assert claimed[0].session_id == "s1" and claimed[0].fields["event"] == "stop"
    assert queue.pending(tmp_path) == []
    assert queue.claim_all(tmp_path) == []  # claimed requests are not handed out twice
    queue.finish(claimed)
    assert list((tmp_path / ".claude" / "kgraph" / "queue").iterdir()) == []


def test_release_puts_requests_back(tmp_path: Path) -> None:
    queue.enqueue(tmp_path, "capture", session_id="s1")
    claimed = queue.claim_all(tmp_path)
    queue.release(claimed)
    assert [r.session_id for r in queue.claim_all(tmp_path)] == ["s1"]


def test_a_dead_workers_claim_returns_to_the_queue(tmp_path: Path) -> None:
    queue.enqueue(tmp_path, "capture", session_id="s1")
    (claimed,) = queue.claim_all(tmp_path)
    assert claimed.path is not None
    old = time.time() - queue.STALE_CLAIM_S - 10
    os.utime(claimed.path, (old, old))
    assert [r.session_id for r in queue.claim_all(tmp_path)] == ["s1"]


def test_unreadable_requests_are_dropped(tmp_path: Path) -> None:
    directory = tmp_path / ".claude" / "kgraph" / "queue"
    directory.mkdir(parents=True)
    (directory / "0001-x.json").write_text("{not json")
    (directory / "0002-y.json").write_text('{"kind": "unknown"}')
    assert queue.claim_all(tmp_path) == []
    assert list(directory.iterdir()) == []


def test_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        queue.enqueue(tmp_path, "delete-everything")


def test_odd_session_ids_make_safe_file_names(tmp_path: Path) -> None:
    path = queue.enqueue(tmp_path, "capture", session_id="../../x y")
    assert path.parent == tmp_path / ".claude" / "kgraph" / "queue"
    assert queue.claim_all(tmp_path)[0].session_id == "../../x y"


def test_claims_of_a_dead_worker_are_retried_at_the_next_run(tmp_path: Path) -> None:
    import subprocess

    queue.enqueue(tmp_path, "capture", session_id="s1")
    (path,) = queue.pending(tmp_path)
    dead_pid = subprocess.Popen(["true"])  # a pid that has exited and been reaped
    dead_pid.wait()
    os.rename(path, path.with_name(f"{path.name}.claimed-{dead_pid.pid}"))
    assert [r.session_id for r in queue.claim_all(tmp_path)] == ["s1"]  # not 15 minutes later
    queue.enqueue(tmp_path, "capture", session_id="s2")
    (path,) = queue.pending(tmp_path)
    os.rename(path, path.with_name(f"{path.name}.claimed-{os.getppid()}"))  # alive: kept
    assert queue.claim_all(tmp_path) == []
