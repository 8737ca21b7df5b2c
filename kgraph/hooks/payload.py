"""The JSON Claude Code sends a hook on stdin, read defensively.

Every field is optional and type-checked: a wrong type is treated as absent, never as an
error. Values that end up in file names or SQL (``session_id``) are validated strictly.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from kgraph.limits import PROMPT_CHARS

# Hook input is small (a prompt is the largest field); anything bigger is not Claude Code's.
MAX_INPUT_BYTES = 4 * 1024 * 1024
MAX_PROMPT_CHARS = PROMPT_CHARS
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class HookInput:
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    hook_event_name: str | None = None
    source: str | None = None
    trigger: str | None = None
    reason: str | None = None
    prompt: str | None = None
    stop_hook_active: bool = False
    agent_id: str | None = None
    last_assistant_message: str | None = None
    tool_name: str | None = None
    # The file a file tool (Read, Edit, Write, MultiEdit, NotebookEdit) worked on.
    tool_file: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    # Why the input was not read (not JSON, not an object, empty): logged, never shown.
    problem: str | None = None


def read_input(stream: BinaryIO | None, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Read all of ``stream`` up to ``limit`` bytes; b"" when there is more (oversized input),
    when it is a terminal (a person ran the hook by hand) or unreadable."""
    if stream is None:
        return b""
    try:
        if stream.isatty():
            return b""
    except (AttributeError, ValueError, OSError):
        pass
    try:
        data = stream.read(limit + 1)
    except (OSError, ValueError):
        return b""
    if not isinstance(data, bytes) or len(data) > limit:
        return b""
    return data


def _text(raw: dict[str, Any], key: str, limit: int = 4096) -> str | None:
    """A string field, or None: a NUL or a lone surrogate (``"\\ud800"`` is valid JSON but
    no file name or database text can hold it) makes a field absent, not an error later."""
    value = raw.get(key)
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    value = value[:limit]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def _abs_path(raw: dict[str, Any], key: str) -> str | None:
    value = _text(raw, key)
    if value is None or not os.path.isabs(value):
        return None
    return value


def _is_dir(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def _tool_file(raw: dict[str, Any]) -> str | None:
    tool_input = raw.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    return _text(tool_input, "file_path") or _text(tool_input, "notebook_path")


def parse_input(data: bytes) -> HookInput:
    """Parse hook stdin; an empty HookInput, saying why, for anything that is not a JSON
    object (Claude Code always sends one: anything else is a hook set up by hand)."""
    if not data:
        return HookInput(problem="the hook input was empty (or too large, or a terminal)")
    try:
        raw = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return HookInput(problem=f"the hook input is not JSON ({len(data):,} bytes)")
    if not isinstance(raw, dict):
        return HookInput(problem=f"the hook input is JSON but not an object ({type(raw).__name__})")
    session_id = _text(raw, "session_id", 64)
    if session_id is not None and not _SESSION_ID.match(session_id):
        session_id = None
    cwd = _abs_path(raw, "cwd")
    if cwd is not None and not _is_dir(cwd):
        cwd = None
    return HookInput(
        session_id=session_id,
        transcript_path=_abs_path(raw, "transcript_path"),
        cwd=cwd,
        hook_event_name=_text(raw, "hook_event_name", 64),
        source=_text(raw, "source", 32),
        trigger=_text(raw, "trigger", 32),
        reason=_text(raw, "reason", 64),
        prompt=_text(raw, "prompt", MAX_PROMPT_CHARS),
        stop_hook_active=raw.get("stop_hook_active") is True,
        agent_id=_text(raw, "agent_id", 128),
        last_assistant_message=_text(raw, "last_assistant_message", 20_000),
        tool_name=_text(raw, "tool_name", 128),
        tool_file=_tool_file(raw),
        raw=raw,
    )
