"""Text markers in transcript user content: kgraph's own context tag, and Claude Code's markers.

kgraph's hooks wrap everything they inject in ``<kgraph-context>...</kgraph-context>``;
capture strips it so kgraph never re-learns its own output. Claude Code's markers (system
reminders and an app's system instructions, the IDE's open file and selection, slash-command
wrappers, shell-mode output, interruption notices, compaction summaries) are classified so
only real user intent is treated as a prompt.
"""

from __future__ import annotations

import re

KGRAPH_CONTEXT_TAG = "kgraph-context"

# An opening tag may carry attributes; an unclosed tag (output cut by a budget) runs to the end.
_KGRAPH_BLOCK = re.compile(
    rf"<{KGRAPH_CONTEXT_TAG}(?:\s[^>]*)?>.*?(?:</{KGRAPH_CONTEXT_TAG}\s*>|\Z)", re.DOTALL
)
# Claude Code's ``<system-reminder>``, and the instructions an app running the agent puts in
# front of the user's first prompt (the Conductor app's ``<system_instruction>You are working
# inside Conductor, ...</system_instruction>``): read as the prompt, it became every
# session's topic, and the prompt hook brought that topic to five later sessions. Only a
# closed block of another name goes: a prompt may write "<system-prompt>" itself.
_SYSTEM_BLOCK = re.compile(
    r"<system-reminder>.*?(?:</system-reminder>|\Z)|<(system[-_][a-z_-]+)>.*?</\1>", re.DOTALL
)
# What Claude Code's IDE extensions add to a prompt: the file the user has open, the lines
# selected ("<ide_opened_file>The user opened the file ... in the IDE. This may or may not be
# related to the current task.</ide_opened_file>"). Context for the model, not the user's
# words: read as a prompt, it became a session's topic and a "rule from the user".
_IDE_CONTEXT = re.compile(r"<(ide_[a-z_]+)>.*?</\1>", re.DOTALL)
_PROMPT_HOOK = re.compile(
    r"<user-prompt-submit-hook>.*?(?:</user-prompt-submit-hook>|\Z)", re.DOTALL
)
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)

COMPACT_SUMMARY_PREFIX = "This session is being continued from a previous conversation"
INTERRUPTED_PREFIX = "[Request interrupted by user"

# Text that starts with one of these tags is protocol, not something the user typed.
_PROTOCOL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("<local-command-caveat>", "caveat"),
    ("<local-command-stdout>", "local_command_output"),
    ("<local-command-stderr>", "local_command_output"),
    ("<bash-input>", "bash_input"),
    ("<bash-stdout>", "bash_output"),
    ("<bash-stderr>", "bash_output"),
    ("<task-notification>", "task_notification"),
)

TEXT_KINDS = (
    "prompt",
    "command",
    "caveat",
    "local_command_output",
    "bash_input",
    "bash_output",
    "task_notification",
    "interrupted",
    "compact_summary",
    "kgraph_context",
    "empty",
)


def has_kgraph_context(text: str) -> bool:
    """True when ``text`` holds context kgraph injected (an opening ``<kgraph-context`` tag)."""
    return f"<{KGRAPH_CONTEXT_TAG}" in text


def strip_kgraph_context(text: str) -> str:
    """``text`` without any ``<kgraph-context>...</kgraph-context>`` block, trimmed.

    Pure and idempotent; text without the tag comes back unchanged apart from trimming.
    """
    if not has_kgraph_context(text):
        return text.strip()
    return _KGRAPH_BLOCK.sub("", text).strip()


def strip_markers(text: str) -> str:
    """``text`` without kgraph context, ``<system-reminder>`` and an app's
    ``<system_instruction>``, the IDE's context (``<ide_opened_file>``, ``<ide_selection>``)
    and legacy prompt-hook blocks."""
    text = strip_kgraph_context(text)
    if "<system" in text:
        text = _SYSTEM_BLOCK.sub("", text)
    if "<ide_" in text:
        text = _IDE_CONTEXT.sub("", text)
    if "<user-prompt-submit-hook>" in text:
        text = _PROMPT_HOOK.sub("", text)
    return text.strip()


def slash_command(text: str) -> str | None:
    """``"/name args"`` for a slash-command wrapper, else None."""
    match = _COMMAND_NAME.search(text)
    if match is None:
        return None
    name = match.group(1).strip()
    args_match = _COMMAND_ARGS.search(text)
    args = args_match.group(1).strip() if args_match else ""
    if not name.startswith("/"):
        name = "/" + name
    return f"{name} {args}".strip()


def classify_user_text(text: str) -> str:
    """What a piece of user text is: one of :data:`TEXT_KINDS`.

    Classified after stripping kgraph context and system reminders; text that was nothing but
    kgraph context is ``"kgraph_context"``.
    """
    cleaned = strip_markers(text)
    if not cleaned:
        return "kgraph_context" if has_kgraph_context(text) else "empty"
    if cleaned.startswith(COMPACT_SUMMARY_PREFIX):
        return "compact_summary"
    if cleaned.startswith(INTERRUPTED_PREFIX):
        return "interrupted"
    for prefix, kind in _PROTOCOL_PREFIXES:
        if cleaned.startswith(prefix):
            return kind
    if cleaned.startswith(("<command-name>", "<command-message>")):
        return "command"
    return "prompt"
