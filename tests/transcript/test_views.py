from __future__ import annotations

from pathlib import Path

from kgraph.transcript import views
from kgraph.transcript.entry import Entry
from kgraph.transcript.reader import iter_entries, parse_line
from tests.transcript.factory import Session


def _entries(session: Session, tmp_path: Path) -> list:  # type: ignore[type-arg]
    return list(iter_entries(session.write(tmp_path / "s.jsonl")))


def test_tool_calls_pair_with_results(tmp_path: Path) -> None:
    s = Session()
    s.prompt("go")
    read_id = s.tool(
        "Read",
        {"file_path": "/w/a.py"},
        "1→print()",
        tool_use_result={"type": "text", "file": {"filePath": "/w/a.py"}},
    )
    bash_id = s.tool("Bash", {"command": "pytest"}, "Exit code 1\nFAILED", is_error=True)
    calls = views.tool_calls(_entries(s, tmp_path))
    assert [(c.id, c.name, c.is_error) for c in calls] == [
        (read_id, "Read", False),
        (bash_id, "Bash", True),
    ]
    assert calls[0].result == "1→print()" and calls[0].result_data["file"]["filePath"] == "/w/a.py"
    assert calls[1].target == "pytest"


def test_tool_result_content_as_blocks_and_pending_call(tmp_path: Path) -> None:
    s = Session()
    s._envelope(
        "assistant",
        message={
            "id": "m1",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Grep", "input": {"pattern": "x"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "sleep 9"}},
            ],
        },
    )
    s._envelope(
        "user",
        message={
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                }
            ]
        },
    )
    calls = views.tool_calls(_entries(s, tmp_path))
    assert calls[0].result == "a\nb"
    assert calls[1].result is None and not calls[1].has_result


def test_duplicate_lines_count_once(tmp_path: Path) -> None:
    s = Session()
    s.prompt("go")
    s.tool("Bash", {"command": "ls"})
    s.raw(dict(s.lines[1]))  # the assistant line written again after a resume
    entries = _entries(s, tmp_path)
    assert len(entries) == 4
    assert len(views.dedupe(entries)) == 3
    assert len(views.tool_calls(entries)) == 1


def test_assistant_blocks_merge_by_message_id() -> None:
    lines = [
        '{"type":"assistant","uuid":"a1","message":{"id":"m","content":[{"type":"thinking","thinking":"hm"}]}}',
        '{"type":"assistant","uuid":"a2","message":{"id":"m","content":[{"type":"text","text":"Hi"}]}}',
        '{"type":"assistant","uuid":"a3","message":{"id":"m","stop_reason":"end_turn",'
        '"usage":{"output_tokens":7},"content":[{"type":"text","text":"Hi"}]}}',
        '{"type":"assistant","uuid":"b1","message":{"id":"n","content":[{"type":"text","text":"Other"}]}}',
    ]
    entries = [e for line in lines for e in parse_line(line)[0]]
    messages = views.assistant_messages(entries)
    assert [m.message_id for m in messages] == ["m", "n"]
    first = messages[0]
    assert [b.kind for b in first.blocks] == ["thinking", "text"]
    assert first.uuids == ("a1", "a2", "a3") and first.stop_reason == "end_turn"
    assert first.text == "Hi" and first.usage == {"output_tokens": 7}


def test_files_touched(tmp_path: Path) -> None:
    s = Session(cwd="/w")
    s.tool("Read", {"file_path": "/w/a.py"})
    s.tool("Read", {"file_path": "/w/missing.py"}, "File does not exist.", is_error=True)
    s.tool("Edit", {"file_path": "/w/b.py", "old_string": "x", "new_string": "y"})
    s.tool(
        "Edit",
        {"file_path": "/w/c.py", "old_string": "x", "new_string": "y"},
        "String to replace not found",
        is_error=True,
    )
    s.tool(
        "Write",
        {"file_path": "/w/new.py", "content": "x"},
        tool_use_result={"type": "create", "filePath": "/w/new.py"},
    )
    s.tool("MultiEdit", {"file_path": "/w/d.py", "edits": []})
    s.tool("NotebookEdit", {"notebook_path": "/w/n.ipynb"})
    s.tool("Bash", {"command": "  git status  "})
    s.raw(
        {
            "type": "file-history-snapshot",
            "messageId": "m",
            "snapshot": {"trackedFileBackups": {"src/e.py": {"version": 1}}},
        }
    )
    touched = views.files_touched(_entries(s, tmp_path))
    assert touched.read == {"/w/a.py"}
    assert touched.edited == {"/w/b.py", "/w/new.py", "/w/d.py", "/w/n.ipynb", "/w/src/e.py"}
    assert touched.written == {"/w/new.py"}
    assert touched.commands == ["git status"]


def test_error_fix_same_command_after_edit(tmp_path: Path) -> None:
    s = Session()
    s.tool(
        "Bash",
        {"command": "pytest -x", "description": "run tests"},
        "Exit code 1\nE   NameError: name 'foo' is not defined",
        is_error=True,
    )
    s.tool("Read", {"file_path": "/w/m.py"})
    s.tool("Edit", {"file_path": "/w/m.py", "old_string": "fo", "new_string": "foo"})
    s.tool("Bash", {"command": "pytest  -x", "description": "rerun"}, "3 passed")
    (fix,) = views.error_fix_sequences(_entries(s, tmp_path))
    assert fix.tool == "Bash" and fix.target == "pytest -x"
    assert "NameError" in fix.error
    assert "edited /w/m.py" in fix.fix and "description" not in fix.fix
    assert fix.attempts == 1 and fix.fix_tool == "Bash"


def test_error_fix_same_file_with_changed_input(tmp_path: Path) -> None:
    s = Session()
    s.tool(
        "Edit",
        {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        is_error=True,
    )
    s.tool(
        "Edit",
        {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        is_error=True,
    )
    s.tool("Read", {"file_path": "/w/a.py"})  # a read is not a fix of an edit
    s.tool("Edit", {"file_path": "/w/a.py", "old_string": "x  = 1", "new_string": "x = 2"})
    (fix,) = views.error_fix_sequences(_entries(s, tmp_path))
    assert fix.error == "String to replace not found in file."
    assert 'old_string: "x = 1" → "x  = 1"' in fix.fix
    assert fix.attempts == 2


def test_no_error_fix_without_success_on_same_target(tmp_path: Path) -> None:
    s = Session()
    s.tool("Bash", {"command": "make"}, "boom", is_error=True)
    s.tool("Bash", {"command": "make all"})
    s.tool("Edit", {"file_path": "/w/a.py"}, "nope", is_error=True)
    s.tool("Edit", {"file_path": "/w/b.py"})
    s.tool(
        "Read",
        {"file_path": "/w/x"},
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        is_error=True,
    )
    s.tool("Read", {"file_path": "/w/x"})
    assert views.error_fix_sequences(_entries(s, tmp_path)) == []


def test_error_fix_accepts_tool_calls_directly(tmp_path: Path) -> None:
    s = Session()
    s.tool("Bash", {"command": "make"}, "boom", is_error=True)
    s.tool("Bash", {"command": "make"})
    calls = views.tool_calls(_entries(s, tmp_path))
    assert len(views.error_fix_sequences(calls)) == 1
    assert views.error_fix_sequences(calls)[0].fix == "retried unchanged"


def test_user_prompts_exclude_protocol_and_kgraph_context(tmp_path: Path) -> None:
    s = Session()
    s.prompt("<kgraph-context>\nLearnings: use uv\n</kgraph-context>\nFix the login bug")
    s.prompt("<kgraph-context>only injected</kgraph-context>")
    s.prompt("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)
    s.prompt(
        "<command-name>/clear</command-name><command-message>clear</command-message><command-args></command-args>"
    )
    s.prompt("<command-name>/review</command-name><command-args>PR 42</command-args>")
    s.prompt("<local-command-stdout>done</local-command-stdout>")
    s.prompt("<bash-input>ls</bash-input>")
    s.prompt("[Request interrupted by user]")
    s.prompt(
        "This session is being continued from a previous conversation ...", isCompactSummary=True
    )
    s.prompt("Also <system-reminder>be careful</system-reminder>add tests")
    s.tool("Bash", {"command": "ls"})
    side = Session(sidechain=True)
    side.prompt("Subagent task prompt")
    s.lines.extend(side.lines)
    entries = _entries(s, tmp_path)
    assert views.user_prompts(entries) == ["Fix the login bug", "/review PR 42", "Also add tests"]
    assert "Subagent task prompt" in views.user_prompts(entries, include_sidechains=True)


def test_qa_pairs_thread_through_parent_uuid(tmp_path: Path) -> None:
    s = Session()
    s.prompt("Which test runner do we use?")
    s.raw(
        {
            "type": "progress",
            "uuid": "p1",
            "parentUuid": s.last_uuid,
            "data": {"type": "hook_progress"},
        }
    )
    s.last_uuid = "p1"
    s.tool("Read", {"file_path": "/w/pyproject.toml"})
    s.text("We use pytest with xdist.")
    s.prompt("And the linter?")
    s.text("ruff")
    s.prompt("no answer to this one")
    pairs = views.qa_pairs(_entries(s, tmp_path))
    chat = [(p.question, p.answer) for p in pairs if p.source == "chat"]
    assert chat == [
        ("Which test runner do we use?", "We use pytest with xdist."),
        ("And the linter?", "ruff"),
    ]


def test_qa_skips_tool_results_and_branches_do_not_leak(tmp_path: Path) -> None:
    s = Session()
    q = s.prompt("first question")
    s.text("first answer")
    # a rewind: a new prompt on the same parent as the first one
    s.last_uuid = q["parentUuid"]
    s.prompt("edited question")
    s.text("second answer")
    pairs = views.qa_pairs(_entries(s, tmp_path))
    assert {(p.question, p.answer) for p in pairs} == {
        ("first question", "first answer"),
        ("edited question", "second answer"),
    }
    assert all(p.question != "ok" for p in pairs)


def test_ask_user_question_answers(tmp_path: Path) -> None:
    s = Session()
    questions = [
        {
            "question": "Which DB?",
            "header": "DB",
            "options": [{"label": "SQLite"}, {"label": "Postgres"}],
            "multiSelect": False,
        }
    ]
    s.tool(
        "AskUserQuestion",
        {"questions": questions},
        'User has answered your questions: "Which DB?"="SQLite". You can now continue.',
        tool_use_result={"questions": questions, "answers": {"Which DB?": "SQLite"}},
    )
    # older shape: answers only in the result text (quotes escaped)
    s.tool(
        "AskUserQuestion",
        {"questions": [{"question": 'Tabs or "spaces"?'}]},
        'User has answered your questions: "Tabs or \\"spaces\\"?"="spaces".',
    )
    pairs = [p for p in views.qa_pairs(_entries(s, tmp_path)) if p.source == "ask_user_question"]
    assert [(p.question, p.answer) for p in pairs] == [
        ("Which DB?", "SQLite"),
        ('Tabs or "spaces"?', "spaces"),
    ]
    assert pairs[0].options == ("SQLite", "Postgres")


def test_compaction_boundaries_and_summaries(tmp_path: Path) -> None:
    s = Session()
    s.prompt("work")
    s.system("microcompact_boundary", microcompactMetadata={"trigger": "auto", "preTokens": 10})
    boundary = s.system(
        "compact_boundary",
        compactMetadata={"trigger": "manual", "preTokens": 155189},
        logicalParentUuid="old",
    )
    boundary["parentUuid"] = None
    s.prompt(
        "This session is being continued from a previous conversation. Summary: X"
        "<kgraph-context>injected</kgraph-context>",
        isCompactSummary=True,
        isVisibleInTranscriptOnly=True,
    )
    entries = _entries(s, tmp_path)
    bounds = views.compaction_boundaries(entries)
    assert [(b.kind, b.trigger, b.pre_tokens) for b in bounds] == [
        ("microcompact", "auto", 10),
        ("compact", "manual", 155189),
    ]
    assert bounds[1].logical_parent_uuid == "old"
    (summary,) = views.compaction_summaries(entries)
    assert summary.endswith("Summary: X") and "kgraph" not in summary
    assert views.user_prompts(entries) == ["work"]


def test_compaction_agent_summary(tmp_path: Path) -> None:
    s = Session(sidechain=True, agent_id="acompact-946d2b")
    s.prompt("Your task is to create a detailed summary of the conversation so far")
    s.text("<analysis>...</analysis><summary>1. Primary request</summary>")
    assert views.compaction_summaries(_entries(s, tmp_path)) == [
        "<analysis>...</analysis><summary>1. Primary request</summary>"
    ]


def test_session_state_from_stop_reason(tmp_path: Path) -> None:
    s = Session()
    s.prompt("go")
    s.text("done", stop_reason="end_turn")
    assert views.session_state(_entries(s, tmp_path)).state == "waiting"
    s.lines[-1]["message"]["stop_reason"] = "tool_use"
    assert views.session_state(_entries(s, tmp_path)).state == "working"
    # top-level stop_reason (older shape) wins too
    del s.lines[-1]["message"]["stop_reason"]
    s.lines[-1]["stop_reason"] = "end_turn"
    state = views.session_state(_entries(s, tmp_path))
    assert (state.state, state.stop_reason) == ("waiting", "end_turn")


def test_session_state_inferred_when_stop_reason_is_null(tmp_path: Path) -> None:
    s = Session()
    s.prompt("go")
    assert views.session_state(_entries(s, tmp_path)).state == "working"
    s.tool("Bash", {"command": "ls"})
    assert views.session_state(_entries(s, tmp_path)).reason == "tool result pending reply"
    s.text("all done")
    assert views.session_state(_entries(s, tmp_path)).state == "waiting"
    s.system("turn_duration", durationMs=5)
    assert views.session_state(_entries(s, tmp_path)).reason == "system turn_duration"
    s.prompt("[Request interrupted by user for tool use]")
    assert views.session_state(_entries(s, tmp_path)).state == "waiting"
    assert views.session_state([]).state == "unknown"


def test_kgraph_injected_context_is_recognised() -> None:
    tagged = "<kgraph-context>\n## Learnings\n- use uv\n</kgraph-context>"
    lines = [
        {
            "type": "attachment",
            "uuid": "a1",
            "attachment": {"type": "hook_success", "hookEvent": "SessionStart", "stdout": tagged},
        },
        {
            "type": "attachment",
            "uuid": "a2",
            "attachment": {"type": "hook_additional_context", "content": [tagged]},
        },
        {
            "type": "attachment",
            "uuid": "a3",
            "attachment": {"type": "hook_success", "stdout": "other hook output"},
        },
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": tagged}},
        {
            "type": "user",
            "uuid": "u2",
            "message": {"role": "user", "content": tagged + "\nreal ask"},
        },
    ]
    entries = [Entry(line) for line in lines]
    assert [views.is_kgraph_injected(e) for e in entries] == [True, True, False, True, False]
    assert views.user_prompts(entries) == ["real ask"]


def test_active_branch_follows_the_newest_leaf_through_compaction(tmp_path: Path) -> None:
    s = Session()
    first = s.prompt("first")
    s.text("answer one")
    abandoned = s.prompt("abandoned")
    s.text("abandoned answer")
    s.last_uuid = first["uuid"]  # rewind: continue from the first prompt
    s.text("answer one, revised")
    before = s.last_uuid
    boundary = s.system("compact_boundary", logicalParentUuid=before)
    boundary["parentUuid"] = None
    s.prompt("after compaction")
    entries = _entries(s, tmp_path)
    texts = [e.text for e in views.active_branch(entries) if e.type != "system"]
    assert texts == ["first", "answer one, revised", "after compaction"]
    assert abandoned["uuid"] not in {e.uuid for e in views.active_branch(entries)}
    # a last-prompt pointer wins
    s.raw({"type": "last-prompt", "lastPrompt": "abandoned", "leafUuid": abandoned["uuid"]})
    leaf = views.active_branch(_entries(s, tmp_path))[-1]
    assert leaf.uuid == abandoned["uuid"]
    assert views.active_branch([]) == []
