from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from kgraph.hooks.context import HookOptions
from kgraph.hooks.runner import HookResult
from kgraph.runtime import queue


def requests(repo: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in queue.pending(repo)]


def test_session_end_queues_a_final_capture_with_the_watermark(
    hook: Callable[..., HookResult], tmp_repo: Path
) -> None:
    transcript = tmp_repo / "t.jsonl"
    transcript.write_text('{"type":"user"}\n')
    result = hook("session-end", session_id="s1", transcript_path=str(transcript), reason="clear")
    assert result.stdout == ""
    (request,) = requests(tmp_repo)
    assert request["kind"] == "capture"
    fields = request["fields"]
    assert isinstance(fields, dict)
    assert fields["session_id"] == "s1" and fields["final"] is True
    assert fields["transcript_size"] == transcript.stat().st_size
    assert fields["reason"] == "clear" and fields["event"] == "session-end"


def test_pre_compact_queues_a_capture(hook: Callable[..., HookResult], tmp_repo: Path) -> None:
    assert hook("pre-compact", session_id="s1", trigger="auto").stdout == ""
    (request,) = requests(tmp_repo)
    assert request["fields"]["event"] == "pre-compact"  # type: ignore[index]
    assert request["fields"]["final"] is False  # type: ignore[index]


def test_stop_is_throttled_and_respects_stop_hook_active(
    hook: Callable[..., HookResult], tmp_repo: Path
) -> None:
    assert hook("stop", session_id="s1", stop_hook_active=True).stdout == ""
    assert requests(tmp_repo) == []
    assert hook("stop", session_id="s1").stdout == ""
    assert hook("stop", session_id="s1").stdout == ""
    assert len(requests(tmp_repo)) == 1  # the second one came within the interval
    stamp = tmp_repo / ".claude" / "kgraph" / "stamps" / "s1.stop"
    old = time.time() - 3600
    os.utime(stamp, (old, old))
    hook("stop", session_id="s1")
    assert len(requests(tmp_repo)) == 2


def test_capture_hooks_need_a_session_and_dry_run_writes_nothing(
    hook: Callable[..., HookResult], tmp_repo: Path
) -> None:
    hook("session-end")
    hook("session-end", HookOptions(dry_run=True), session_id="s1")
    hook("stop", HookOptions(dry_run=True), session_id="s1")
    assert requests(tmp_repo) == []
