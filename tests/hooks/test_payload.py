from __future__ import annotations

import io
import json
from pathlib import Path

from kgraph.hooks.payload import MAX_INPUT_BYTES, parse_input, read_input


def test_parses_the_documented_session_start_input(tmp_path: Path) -> None:
    raw = {
        "session_id": "abc-123",
        "transcript_path": "/x/.claude/projects/p/abc-123.jsonl",
        "cwd": str(tmp_path),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": "claude-sonnet-5",
    }
    got = parse_input(json.dumps(raw).encode())
    assert got.session_id == "abc-123"
    assert got.cwd == str(tmp_path)
    assert got.source == "startup"
    assert got.transcript_path == raw["transcript_path"]
    assert got.raw == raw


def test_wrong_types_and_unsafe_values_count_as_absent(tmp_path: Path) -> None:
    raw = {
        "session_id": "../../etc/passwd",
        "cwd": "relative/dir",
        "transcript_path": 5,
        "prompt": ["not", "a", "string"],
        "stop_hook_active": "true",
        "source": None,
    }
    got = parse_input(json.dumps(raw).encode())
    assert got.session_id is None
    assert got.cwd is None
    assert got.transcript_path is None
    assert got.prompt is None
    assert got.stop_hook_active is False
    assert got.source is None


def test_a_cwd_that_does_not_exist_is_ignored(tmp_path: Path) -> None:
    got = parse_input(json.dumps({"cwd": str(tmp_path / "gone")}).encode())
    assert got.cwd is None


def test_non_objects_and_garbage_give_an_empty_input() -> None:
    for data in (b"", b"[]", b"null", b"\xff\xfe garbage", b'"text"', b"{" * 10_000):
        got = parse_input(data)
        assert got.session_id is None and got.raw == {}


def test_read_input_refuses_oversized_input() -> None:
    assert read_input(io.BytesIO(b"x" * (MAX_INPUT_BYTES + 1))) == b""
    assert read_input(io.BytesIO(b'{"a": 1}')) == b'{"a": 1}'
    assert read_input(None) == b""


def test_a_lone_surrogate_makes_a_field_absent(tmp_path: Path) -> None:
    raw = '{"session_id": "s1", "transcript_path": "/t/\\ud800.jsonl", "prompt": "a\\udfffb"}'
    got = parse_input(raw.encode())
    assert got.session_id == "s1" and got.transcript_path is None and got.prompt is None


def test_a_lone_surrogate_in_a_capture_request_does_not_fail_the_worker(tmp_repo: Path) -> None:
    from kgraph.capture.worker import run_worker
    from kgraph.hooks.runner import run_hook
    from kgraph.runtime import queue

    raw = json.dumps({"session_id": "s1", "cwd": str(tmp_repo)})[:-1]
    raw += ', "transcript_path": "/t/\\ud800.jsonl", "reason": "other"}'
    assert run_hook("session-end", raw.encode()).stdout == ""
    (request,) = queue.claim_all(tmp_repo)
    assert request.fields["transcript_path"] is None
    queue.release([request])
    report = run_worker(tmp_repo)
    assert report.failed == 0 and report.captured == ["s1"]
