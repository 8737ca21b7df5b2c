"""Claude Code's file tool names: one set of each kind, and the hook sees the ones it needs."""

from __future__ import annotations

from kgraph.setup.install import HOOK_SPECS
from kgraph.tools import FILE_TOOLS, MODIFY_TOOLS, READ_TOOLS, TEXT_EDIT_TOOLS


def test_the_kinds_nest() -> None:
    assert TEXT_EDIT_TOOLS < MODIFY_TOOLS < FILE_TOOLS
    assert READ_TOOLS | MODIFY_TOOLS == FILE_TOOLS and not READ_TOOLS & MODIFY_TOOLS


def test_the_post_tool_use_matcher_sends_every_text_edit_and_the_read() -> None:
    matcher = next(s.matcher for s in HOOK_SPECS if s.claude_event == "PostToolUse")
    assert matcher is not None
    sent = set(matcher.split("|"))
    assert sent <= FILE_TOOLS and TEXT_EDIT_TOOLS | {"Read"} == sent
