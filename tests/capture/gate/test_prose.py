"""Markdown emphasis is stripped from prose; the underscores and stars of code are not."""

from __future__ import annotations

import pytest

from kgraph.capture.gate.prose import clean_markdown, strip_emphasis, units


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pkg/__init__.py", "pkg/__init__.py"),
        ("`__call__` runs the hook", "`__call__` runs the hook"),
        ("__call__ runs the hook", "__call__ runs the hook"),
        ("__init__.py re-exports it", "__init__.py re-exports it"),
        ("src/__tests__/x.test.ts", "src/__tests__/x.test.ts"),
        ("snake__case and mcp__acp__Write", "snake__case and mcp__acp__Write"),
        ("def f(*args, **kwargs)", "def f(*args, **kwargs)"),
        ("**Root cause:** x", "Root cause: x"),
        ("__Note__: y", "Note: y"),
        ("__two words__ and *one* and ***both***", "two words and one and both"),
        ("**`paths.go`** maps it", "`paths.go` maps it"),
    ],
)
def test_strip_emphasis(text: str, expected: str) -> None:
    assert strip_emphasis(text) == expected


# Lines from capture-dev transcripts.
_GLOB = (
    "1. Replace `loadTasksFromQueue()` with `loadAllTasks()` that globs "
    "`feature_requests/**/AGI-*.md`"
)
_MCP = (
    "• Added wildcard syntax `mcp__server__*` for MCP tool permissions to allow or deny all "
    "tools from a server"
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (_GLOB, _GLOB),
        (_MCP, _MCP),
        ('if __name__ == "__main__":', 'if __name__ == "__main__":'),
        (
            "I mean, we _see_ it on the stop hook; it doesn't mean the stop hook caused it",
            "I mean, we see it on the stop hook; it doesn't mean the stop hook caused it",
        ),
        ("*Skipped commit due to no file changes", "*Skipped commit due to no file changes"),
    ],
)
def test_clean_markdown_keeps_code_in_real_lines(line: str, expected: str) -> None:
    assert clean_markdown(line) == expected


def test_units_keep_dunders_and_drop_bold() -> None:
    text = (
        "1. **Remove `mcp__linear__*` tool call references** — queue reading and result "
        "writing are now handled by the TypeScript orchestrator, not by Claude agents\n\n"
        "**Root cause:** `pkg/__init__.py` imports the module, so __call__ runs twice."
    )
    assert units(text) == [
        [
            "Remove `mcp__linear__*` tool call references — queue reading and result writing "
            "are now handled by the TypeScript orchestrator, not by Claude agents"
        ],
        ["Root cause: `pkg/__init__.py` imports the module, so __call__ runs twice."],
    ]
