"""Property tests: whatever arrives on stdin, every hook exits cleanly with contract output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgraph.hooks.payload import MAX_INPUT_BYTES
from kgraph.hooks.runner import EVENTS, run_hook

EVENT_NAMES = sorted(EVENTS)
FIELDS = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
    "trigger",
    "reason",
    "prompt",
    "stop_hook_active",
    "agent_id",
    "last_assistant_message",
    "custom_instructions",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def check_output(event: str, stdout: str) -> None:
    if stdout == "":
        return
    data = json.loads(stdout)
    assert event in ("session-start", "user-prompt")
    assert set(data) == {"hookSpecificOutput"}
    output = data["hookSpecificOutput"]
    assert output["hookEventName"] == EVENTS[event][0]
    assert (
        isinstance(output["additionalContext"], str) and len(output["additionalContext"]) <= 9_900
    )


@pytest.fixture
def knowledge_repo(tmp_repo: Path) -> Path:
    """A repo with a database holding knowledge about a changed file."""
    from kgraph.db import open_database
    from kgraph.knowledge.store import add_item

    db = open_database(f"sqlite:///{tmp_repo / '.claude' / 'execution-state.db'}")
    add_item(db, "The README is rendered on PyPI as markdown", files=["README.md"])
    add_item(db, "Payment webhook retries three times on timeout", issue_number=5)
    db.close()
    (tmp_repo / "README.md").write_text("changed\n")
    return tmp_repo


def payloads(cwds: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    good = st.fixed_dictionaries(
        {},
        optional={
            "session_id": st.sampled_from(["s1", "abc-123", "", "../x", "a" * 100])
            | st.text(max_size=20),
            "cwd": st.sampled_from(cwds) | json_values,
            "transcript_path": st.sampled_from(["/nonexistent/t.jsonl", "relative.jsonl"])
            | json_values,
            "source": st.sampled_from(["startup", "resume", "clear", "compact", "fork"])
            | json_values,
            "prompt": st.sampled_from(["payment webhook retries?", "/clear", ""]) | json_values,
            "stop_hook_active": json_values,
            "agent_id": st.none() | st.text(max_size=5),
            "reason": json_values,
        },
    )
    extra = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=6)
    return st.one_of(good, extra)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(event=st.sampled_from(EVENT_NAMES), data=st.binary(max_size=300))
def test_random_bytes(event: str, data: bytes) -> None:
    check_output(event, run_hook(event, data).stdout)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(event=st.sampled_from(EVENT_NAMES), payload=st.data())
def test_random_json_payloads(
    event: str, payload: st.DataObject, knowledge_repo: Path, tmp_path: Path
) -> None:
    value = payload.draw(payloads([str(knowledge_repo), str(tmp_path), "/", "/nonexistent"]))
    text = json.dumps(value)
    check_output(event, run_hook(event, text.encode()).stdout)


@settings(max_examples=30, deadline=None)
@given(event=st.sampled_from(EVENT_NAMES), value=json_values)
def test_json_that_is_not_an_object(event: str, value: Any) -> None:
    assert run_hook(event, json.dumps(value).encode()).stdout == ""


def test_known_good_input_gives_context(knowledge_repo: Path) -> None:
    payload = {"session_id": "s1", "cwd": str(knowledge_repo), "source": "startup"}
    result = run_hook("session-start", json.dumps(payload).encode())
    check_output("session-start", result.stdout)
    assert "README" in result.stdout


@pytest.mark.parametrize("event", EVENT_NAMES)
def test_huge_input_is_ignored(event: str, knowledge_repo: Path, tmp_path: Path) -> None:
    huge = json.dumps(
        {"cwd": str(tmp_path), "session_id": "s1", "prompt": "x" * (MAX_INPUT_BYTES + 10)}
    )
    proc = run_kgraph_hook(event, huge.encode(), knowledge_repo)
    assert proc.returncode == 0 and proc.stderr == b""
    check_output(event, proc.stdout.decode())  # treated as no input: the process cwd's project
    assert not (tmp_path / ".claude").exists()  # nothing from the oversized payload was used


def run_kgraph_hook(
    event: str, data: bytes, cwd: Path, *args: str
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "KGRAPH_HOOK_NO_SPAWN": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kgraph", "hook", event, *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("event", EVENT_NAMES)
@pytest.mark.parametrize(
    "data",
    [
        b"\x00\xff\xfe not json",
        b'{"session_id": 5, "cwd": ["x"], "prompt": {"a": 1}}',
        b"[1, 2]",
        b"",
    ],
    ids=["bytes", "wrong-types", "array", "empty"],
)
def test_real_process_with_bad_input(event: str, data: bytes, knowledge_repo: Path) -> None:
    proc = run_kgraph_hook(event, data, knowledge_repo)
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr and proc.stderr == b""
    check_output(event, proc.stdout.decode())


@pytest.mark.parametrize("args", [["--bogus"], ["--max-chars", "lots"], ["extra-arg"]])
def test_usage_errors_exit_zero_silently(args: list[str], knowledge_repo: Path) -> None:
    for event in ("session-start", "user-prompt", "stop"):
        proc = run_kgraph_hook(event, b"{}", knowledge_repo, *args)
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    proc = subprocess.run(
        [sys.executable, "-m", "kgraph", "hook", "no-such-hook"],
        input=b"{}",
        capture_output=True,
        cwd=knowledge_repo,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
