from __future__ import annotations

import pytest

from kgraph.transcript.markers import (
    KGRAPH_CONTEXT_TAG,
    classify_user_text,
    slash_command,
    strip_kgraph_context,
    strip_markers,
)


def test_tag_name_is_the_contract() -> None:
    assert KGRAPH_CONTEXT_TAG == "kgraph-context"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain prompt", "plain prompt"),
        ("<kgraph-context>x</kgraph-context>", ""),
        ("before <kgraph-context>x\ny</kgraph-context> after", "before  after"),
        ('<kgraph-context source="session-start">x</kgraph-context>ask', "ask"),
        ("ask <kgraph-context>cut off by a budget", "ask"),
        ("<kgraph-context>a</ kgraph-context>b</kgraph-context>c", "c"),  # escaped inner close
        ("<kgraph-context>a</kgraph-context>mid<kgraph-context>b</kgraph-context>", "mid"),
    ],
)
def test_strip_kgraph_context(text: str, expected: str) -> None:
    assert strip_kgraph_context(text) == expected
    assert strip_kgraph_context(strip_kgraph_context(text)) == expected  # idempotent


def test_strip_markers_removes_reminders_and_legacy_hook_output() -> None:
    text = (
        "fix it<system-reminder>todo list</system-reminder>\n"
        "<user-prompt-submit-hook>x</user-prompt-submit-hook>"
    )
    assert strip_markers(text) == "fix it"


def test_strip_markers_removes_an_app_s_system_instruction() -> None:
    # Cut from unseen sessions (gaia, chkit): the Conductor app's instructions in front of
    # the user's first prompt.
    text = (
        "<system_instruction>\nYou are working inside Conductor, a Mac app that lets the user "
        "run many coding agents in parallel.\n</system_instruction>\n\nMissing user_id in "
        "runnable metadata for composio tool"
    )
    assert strip_markers(text) == "Missing user_id in runnable metadata for composio tool"
    assert classify_user_text("<system-instruction>only</system-instruction>") == "empty"
    # A prompt that writes such a tag itself keeps its words.
    assert strip_markers("add a <system-prompt> field to the config") == (
        "add a <system-prompt> field to the config"
    )


def test_strip_markers_removes_what_the_ide_added() -> None:
    # Cut from an unseen session (orpheus): the IDE extension's open file, a text block of
    # its own before what the user typed.
    opened = (
        "<ide_opened_file>The user opened the file /Users/me/orpheus/.claude/settings.json "
        "in the IDE. This may or may not be related to the current task.</ide_opened_file>"
    )
    assert (
        strip_markers(f"{opened}\nCreate a new branch worktree") == "Create a new branch worktree"
    )
    selected = "<ide_selection>The user selected lines 3-9 of app.py</ide_selection>"
    assert strip_markers(f"why this?{selected}") == "why this?"
    assert classify_user_text(opened) == "empty"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Refactor the parser", "prompt"),
        ("", "empty"),
        ("<kgraph-context>only</kgraph-context>", "kgraph_context"),
        ("<system-reminder>only</system-reminder>", "empty"),
        ("<command-name>/clear</command-name>", "command"),
        (
            "<command-message>review</command-message><command-name>/review</command-name>",
            "command",
        ),
        ("<local-command-stdout>ok</local-command-stdout>", "local_command_output"),
        ("<local-command-caveat>Caveat: ...</local-command-caveat>", "caveat"),
        ("<bash-input>ls</bash-input>", "bash_input"),
        ("<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>", "bash_output"),
        ("<task-notification>done</task-notification>", "task_notification"),
        ("[Request interrupted by user for tool use]", "interrupted"),
        (
            "This session is being continued from a previous conversation that ran out",
            "compact_summary",
        ),
    ],
)
def test_classify_user_text(text: str, kind: str) -> None:
    assert classify_user_text(text) == kind


def test_slash_command() -> None:
    assert (
        slash_command("<command-name>/review</command-name><command-args>42</command-args>")
        == "/review 42"
    )
    assert slash_command("<command-name>compact</command-name>") == "/compact"
    assert slash_command("no command") is None
