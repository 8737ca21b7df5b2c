from __future__ import annotations

from pathlib import Path

from kgraph.transcript.stats import session_status, transcript_stats
from kgraph.transcript.stuck import StuckThresholds
from tests.transcript.factory import Session


def test_stats_counts(tmp_path: Path) -> None:
    s = Session(cwd="/w")
    s.prompt("go")
    s.tool("Read", {"file_path": "/w/a.py"})
    s.tool("Edit", {"file_path": "/w/a.py"}, "not found", is_error=True)
    s.tool("Edit", {"file_path": "/w/a.py"})
    s.tool(
        "Task", {"prompt": "look"}, tool_use_result={"agentId": "a1b2c3d", "status": "completed"}
    )
    s.system("compact_boundary", compactMetadata={"trigger": "auto"})
    s.raw(dict(s.lines[2]))  # a duplicated line
    s.raw({"type": "summary", "summary": "t", "leafUuid": "x"})
    path = s.write(tmp_path / "sess.jsonl")
    with path.open("a") as handle:
        handle.write("not json\n")
    progress: list[int] = []
    stats = transcript_stats(path, progress=progress.append)
    assert progress[-1] == path.stat().st_size
    assert stats.entries == 12 and stats.unique_entries == 11 and stats.malformed == 1
    assert stats.types == {"assistant": 4, "summary": 1, "system": 1, "user": 6}
    assert (stats.tool_calls, stats.tool_errors) == (4, 1)
    assert (stats.files_read, stats.files_edited, stats.compactions) == (1, 1, 1)
    assert stats.subagents == 1 and stats.session_ids == ["sess-1"]
    assert stats.to_dict()["files"] == {"read": ["/w/a.py"], "edited": ["/w/a.py"]}


def test_status_stuck_only_while_not_waiting(tmp_path: Path) -> None:
    s = Session()
    s.prompt("build it")
    for _ in range(4):
        s.tool("Bash", {"command": "ls"}, "same")
    path = s.write(tmp_path / "s.jsonl")
    status = session_status(path)
    assert status.state == "stuck" and status.stuck is not None
    assert status.stuck.pattern == "same_action" and status.session_id == "sess-1"
    assert session_status(path, StuckThresholds(same_action=5)).state == "working"
    s.text("I keep getting the same output; what should I do?", stop_reason="end_turn")
    s.write(path)
    waiting = session_status(path)
    assert waiting.state == "waiting" and waiting.stuck is not None  # pattern still reported
