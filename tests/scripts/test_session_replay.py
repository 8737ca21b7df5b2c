"""session_replay's pure parts: a transcript as a hook plan, a hook's output as item ids,
and the summary of judged session-items."""

from __future__ import annotations

import json
from pathlib import Path

from session_replay_lib import Prompt, ToolCall, parse_output, read_plan, split_items
from session_replay_report import Injected, SessionResult, summarise

from tests.capture.transcript_builder import TranscriptBuilder


def test_a_transcript_becomes_its_prompts_and_file_calls_in_order(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    path = (
        TranscriptBuilder("s1", str(repo))
        .prompt("why does resume find nothing after a merge?")
        .tool("Read", {"file_path": str(repo / "cmd/resume.go")}, "package main")
        .tool("Read", {"file_path": "/elsewhere/notes.md"}, "notes")
        .tool("Edit", {"file_path": str(repo / "cmd/x.go")}, "no match", error=True)
        .prompt("now fix it")
        .write(tmp_path / "t.jsonl")
    )
    plan = read_plan(path)
    assert plan is not None and plan.session_id == "s1"
    assert [type(s) for s in plan.steps] == [Prompt, ToolCall, Prompt]
    assert plan.steps[1] == ToolCall(
        "Read", "cmd/resume.go", {"file_path": str(repo / "cmd/resume.go")}, plan.steps[1].call_id
    )
    assert (plan.outside, plan.failed) == (1, 1)
    # where --capture-at-end checks out: the session's last entry
    assert plan.ended >= plan.started


def test_a_session_recorded_on_windows_maps_its_paths(tmp_path: Path) -> None:
    cwd = "C:\\Users\\ann\\git\\starcar"
    path = (
        TranscriptBuilder("s1", cwd)
        .prompt("tidy the setup guide")
        .tool("Read", {"file_path": cwd + "\\docs\\setup.md"}, "# Setup")
        .write(tmp_path / "t.jsonl")
    )
    plan = read_plan(path)
    assert plan is not None and isinstance(plan.steps[1], ToolCall)
    assert plan.steps[1].path == "docs/setup.md" and plan.outside == 0


def test_paths_through_a_symlink_or_a_worktree_map_onto_the_checkout(tmp_path: Path) -> None:
    cwd = "/Users/ann/Library/Mobile Documents/com~apple~CloudDocs/Developer/nv-mcp"
    path = (
        TranscriptBuilder("s1", cwd)
        .prompt("fix the config loader")
        .tool("Read", {"file_path": "/Users/ann/Developer/nv-mcp/build/config.yaml"}, "a: 1")
        .tool("Read", {"file_path": cwd + "/.claude/worktrees/w1/src/load.py"}, "def load(): ...")
        .tool("Read", {"file_path": "/Users/ann/Developer/other/x.py"}, "x = 1")
        .write(tmp_path / "t.jsonl")
    )
    plan = read_plan(path)
    assert plan is not None
    assert [s.path for s in plan.steps if isinstance(s, ToolCall)] == [
        "build/config.yaml",
        "src/load.py",
    ]
    assert plan.outside == 1


def test_item_lines_give_their_ids_and_the_frame_is_not_items() -> None:
    context = (
        "kgraph project memory: facts recorded in earlier sessions.\n"
        "Latest commits: 1a2b3c4 fix: resume.\n"
        "- Mistake [mis-0123456789] (about cmd/resume.go): merge commits have no trailer\n"
        "- Learning [lrn-abcdefabcd]: resume walks the branch's own commits\n"
        "- Mistake [mis-0123456789] again\n"
        "- a line without an id\n"
    )
    found = split_items(context)
    assert found.ids == ("mis-0123456789", "lrn-abcdefabcd")
    assert found.unparsed == ("- a line without an id",)
    hook = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "x"}}
    assert parse_output(json.dumps(hook)) == ("x", "", None)
    assert parse_output("") == ("", "", None)


def test_the_summary_counts_verdicts_per_hook_and_an_item_s_reach() -> None:
    def item(key: str, hook: str) -> Injected:
        return Injected(key, hook, f"lrn-{key}", "Learning", "commit", (), "text")

    first = SessionResult("aaaaaaaa-1", "d", "sha", "p", items=[item("k1", "user-prompt")])
    second = SessionResult(
        "bbbbbbbb-2",
        "d",
        "sha",
        "p",
        items=[item("k1", "post-tool-use"), item("k2", "user-prompt")],
    )
    verdicts = {
        "aaaaaaaa:k1": {"verdict": "useful"},
        "bbbbbbbb:k1": {"verdict": "irrelevant"},
    }
    rows = {r.label: r for r in summarise([first, second], verdicts)}
    assert rows["all"].injected == 3 and rows["all"].distinct == 2 and rows["all"].max_reach == 2
    assert rows["all"].counts == {"useful": 1, "irrelevant": 1, "junk": 0, "unjudged": 1}
    assert rows["all"].share("useful") == 0.5
    assert rows["user-prompt"].injected == 2 and rows["post-tool-use"].counts["irrelevant"] == 1


def test_a_partial_read_is_shown_with_its_lines() -> None:
    from session_replay import _tool_trigger

    def call(name: str, **given: object) -> ToolCall:
        return ToolCall(name, "cmd/x.go", {"file_path": "/r/cmd/x.go", **given}, "c1")

    assert _tool_trigger(call("Read")) == "Read cmd/x.go"
    assert _tool_trigger(call("Read", offset=40, limit=40)) == "Read cmd/x.go lines 40-79"
    assert _tool_trigger(call("Read", limit=20)) == "Read cmd/x.go lines 1-20"
    assert _tool_trigger(call("Read", offset=900)) == "Read cmd/x.go lines 900-end"
    assert _tool_trigger(call("Edit", offset=3)) == "Edit cmd/x.go"
