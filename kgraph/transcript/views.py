"""Derived views of a transcript: tool calls, files touched, error→fix sequences, Q&A, prompts,
compaction, and session state — the one module callers import.

Files touched and error→fix sequences live here; the others are re-exported from
``toolcalls``, ``conversation``, ``session`` and ``stuck``. Every view takes entries in file
order (from :mod:`kgraph.transcript.reader`), deduplicates them by ``uuid`` first (a line
re-written after a resume counts once), and never raises on odd input: a missing field just
means the view has less to say.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgraph.tools import MODIFY_TOOLS, READ_TOOLS
from kgraph.transcript.conversation import (
    AssistantMessage,
    QAPair,
    active_branch,
    assistant_messages,
    is_kgraph_injected,
    qa_pairs,
    user_prompts,
)
from kgraph.transcript.entry import Entry
from kgraph.transcript.session import (
    CompactionBoundary,
    SessionState,
    compaction_boundaries,
    compaction_summaries,
    session_state,
)
from kgraph.transcript.stuck import StuckReport, StuckThresholds, detect_stuck
from kgraph.transcript.toolcalls import (
    ToolCall,
    action_class,
    dedupe,
    error_text,
    is_sibling_cancel,
    target_of,
    tool_calls,
)

__all__ = [
    "AssistantMessage",
    "CompactionBoundary",
    "ErrorFix",
    "FilesTouched",
    "QAPair",
    "SessionState",
    "StuckReport",
    "StuckThresholds",
    "ToolCall",
    "active_branch",
    "assistant_messages",
    "compaction_boundaries",
    "compaction_summaries",
    "dedupe",
    "detect_stuck",
    "error_fix_sequences",
    "files_touched",
    "is_kgraph_injected",
    "qa_pairs",
    "session_state",
    "tool_calls",
    "user_prompts",
]

# Input keys that change between otherwise identical calls and say nothing about the fix.
_NOISE_KEYS = frozenset({"description", "timeout"})


# ----------------------------------------------------------------------------- files


@dataclass(frozen=True)
class FilesTouched:
    """Files the session read, edited (modified in any way) and wrote, and commands it ran.

    Paths are as written in the transcript (tool inputs are absolute; snapshot keys, relative
    to the cwd, are joined to the cwd when it is known). ``written`` is a subset of ``edited``.
    """

    read: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    commands: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "read": sorted(self.read),
            "edited": sorted(self.edited),
            "written": sorted(self.written),
            "commands": list(self.commands),
        }


def _input_path(data: dict[str, Any]) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def files_touched(entries: Iterable[Entry]) -> FilesTouched:
    """Files read / edited / written and Bash commands run (failed edits and reads excluded)."""
    entries = dedupe(entries)
    touched = FilesTouched()
    for call in tool_calls(entries):
        if call.is_error:
            continue
        if call.name == "Bash":
            command = call.input.get("command")
            if isinstance(command, str) and command.strip():
                touched.commands.append(command.strip())
            continue
        path = _input_path(call.input)
        result_path = None
        if isinstance(call.result_data, dict):
            value = call.result_data.get("filePath")
            result_path = value if isinstance(value, str) and value else None
        if call.name in READ_TOOLS and path:
            touched.read.add(path)
        elif call.name in MODIFY_TOOLS:
            for p in {path, result_path} - {None}:
                assert p is not None
                touched.edited.add(p)
                if call.name == "Write":
                    touched.written.add(p)
    cwd: str | None = None
    for entry in entries:
        cwd = entry.cwd or cwd
        if entry.type != "file-history-snapshot":
            continue
        snapshot = entry.raw.get("snapshot")
        backups = snapshot.get("trackedFileBackups") if isinstance(snapshot, dict) else None
        if isinstance(backups, dict):
            for key in backups:
                if isinstance(key, str) and key:
                    touched.edited.add(_join(cwd, key))
    return touched


def _join(cwd: str | None, path: str) -> str:
    if cwd is None or path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return path
    separator = "\\" if "\\" in cwd and "/" not in cwd else "/"
    return cwd.rstrip("/\\") + separator + path


# ----------------------------------------------------------------------------- error -> fix


@dataclass(frozen=True)
class ErrorFix:
    """A failing tool call and the later call on the same target that succeeded.

    ``fix`` says what changed between the two: the differing inputs and what the session
    edited or ran in between (``"retried unchanged"`` when nothing did). ``attempts`` counts
    the failures on that target before the fix.
    """

    tool: str
    target: str
    error: str
    fix: str
    error_call_id: str
    fix_call_id: str
    attempts: int = 1
    timestamp: str | None = None
    fix_tool: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "target": self.target,
            "error": self.error,
            "fix": self.fix,
            "error_call_id": self.error_call_id,
            "fix_call_id": self.fix_call_id,
            "attempts": self.attempts,
            "timestamp": self.timestamp,
            "fix_tool": self.fix_tool,
        }


def error_fix_sequences(
    entries: Iterable[Entry] | Sequence[ToolCall], *, max_gap: int = 30
) -> list[ErrorFix]:
    """Failing tool calls followed (within ``max_gap`` calls) by a success on the same target.

    Same target means the same Bash command, or the same file with the same kind of action
    (a failed Edit is fixed by a later successful Edit/Write of that file, not by a Read).
    Calls cancelled only because a parallel sibling failed are ignored.
    """
    calls = _as_calls(entries)
    pending: dict[tuple[str, str], tuple[int, int]] = {}  # key -> (last failure index, count)
    found: list[ErrorFix] = []
    for index, call in enumerate(calls):
        target = target_of(call)
        if target is None or not call.has_result or is_sibling_cancel(call):
            continue
        key = (action_class(call), target)
        if call.is_error:
            count = pending[key][1] + 1 if key in pending else 1
            pending[key] = (index, count)
            continue
        if key not in pending:
            continue
        failed_index, attempts = pending.pop(key)
        if index - failed_index > max_gap:
            continue
        failed = calls[failed_index]
        found.append(
            ErrorFix(
                tool=failed.name,
                target=target,
                error=error_text(failed),
                fix=_describe_fix(failed, call, calls[failed_index + 1 : index]),
                error_call_id=failed.id,
                fix_call_id=call.id,
                attempts=attempts,
                timestamp=call.timestamp,
                fix_tool=call.name,
            )
        )
    return found


def _as_calls(items: Iterable[Entry] | Sequence[ToolCall]) -> list[ToolCall]:
    materialised: list[Entry | ToolCall] = list(items)
    calls = [i for i in materialised if isinstance(i, ToolCall)]
    if calls and len(calls) == len(materialised):
        return calls
    return tool_calls(i for i in materialised if isinstance(i, Entry))


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _literal(value: Any, limit: int = 160) -> str:
    """A value as JSON (whitespace escaped, not collapsed: it is often the whole fix)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe_fix(failed: ToolCall, fixed: ToolCall, between: Sequence[ToolCall]) -> str:
    parts: list[str] = []
    if fixed.name != failed.name:
        parts.append(f"used {fixed.name} instead of {failed.name}")
    for key in sorted(set(failed.input) | set(fixed.input)):
        if key in _NOISE_KEYS:
            continue
        before, after = failed.input.get(key), fixed.input.get(key)
        if before != after:
            parts.append(f"{key}: {_literal(before)} → {_literal(after)}")
    edited: list[str] = []
    ran: list[str] = []
    read: list[str] = []
    for call in between:
        if call.is_error:
            continue
        if call.name in READ_TOOLS:
            path = _input_path(call.input)
            if path and path not in read:
                read.append(path)
        elif call.name in MODIFY_TOOLS:
            path = _input_path(call.input)
            if path and path not in edited:
                edited.append(path)
        elif call.name == "Bash":
            command = call.input.get("command")
            if isinstance(command, str) and command.strip():
                ran.append(_short(command, 80))
    if edited:
        parts.append("edited " + ", ".join(edited[:5]) + (" …" if len(edited) > 5 else ""))
    if ran:
        parts.append("ran " + "; ".join(f"`{c}`" for c in ran[:3]) + (" …" if len(ran) > 3 else ""))
    if read:
        parts.append("read " + ", ".join(read[:5]) + (" …" if len(read) > 5 else ""))
    return "; ".join(parts) if parts else "retried unchanged"
