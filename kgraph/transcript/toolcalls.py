"""Tool calls paired with their results, and the notions of "target" and "action" built on them.

A ``tool_use`` block (assistant) and its ``tool_result`` block (user, matched on
``tool_use_id``) become one :class:`ToolCall`. The structured ``toolUseResult`` of the result
line is kept as ``result_data`` when the line carries a single result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgraph.tools import FILE_TOOLS, MODIFY_TOOLS
from kgraph.transcript.entry import Entry

_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
SIBLING_CANCEL_TEXT = "Sibling tool call errored"


@dataclass(frozen=True)
class ToolCall:
    """One tool call. ``result`` is None while the call has no result (still running, or the
    result is outside the entries read). ``is_error`` is the result's ``is_error`` flag."""

    id: str
    name: str
    input: dict[str, Any]
    result: str | None
    is_error: bool
    timestamp: str | None
    result_timestamp: str | None = None
    result_data: Any = None
    is_sidechain: bool = False
    agent_id: str | None = None
    uuid: str | None = None

    @property
    def has_result(self) -> bool:
        return self.result is not None

    @property
    def target(self) -> str | None:
        return target_of(self)

    def to_dict(self, *, max_result: int | None = None) -> dict[str, Any]:
        result = self.result
        if result is not None and max_result is not None and len(result) > max_result:
            result = result[:max_result] + "…"
        return {
            "id": self.id,
            "name": self.name,
            "input": self.input,
            "result": result,
            "is_error": self.is_error,
            "timestamp": self.timestamp,
            "result_timestamp": self.result_timestamp,
            "is_sidechain": self.is_sidechain,
            "agent_id": self.agent_id,
            "target": self.target,
        }


def dedupe(entries: Iterable[Entry]) -> list[Entry]:
    """Entries with duplicate ``uuid`` collapsed: the first position, the latest content.

    Entries without a uuid (summaries, snapshots, metadata lines) are all kept.
    """
    result: list[Entry] = []
    index: dict[str, int] = {}
    for entry in entries:
        uuid = entry.uuid
        if uuid is None:
            result.append(entry)
        elif uuid in index:
            result[index[uuid]] = entry
        else:
            index[uuid] = len(result)
            result.append(entry)
    return result


def tool_calls(entries: Iterable[Entry]) -> list[ToolCall]:
    """Tool calls in the order they were made, each paired with its result when present.

    Calls are distinct by tool_use id (a block repeated on a re-written line counts once);
    results whose call is not among ``entries`` are ignored.
    """
    calls: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if entry.type == "assistant":
            for block in entry.blocks:
                if block.kind != "tool_use" or not block.id or block.id in calls:
                    continue
                calls[block.id] = {
                    "id": block.id,
                    "name": block.name or "unknown",
                    "input": block.input,
                    "result": None,
                    "is_error": False,
                    "timestamp": entry.timestamp,
                    "is_sidechain": entry.is_sidechain,
                    "agent_id": entry.agent_id,
                    "uuid": entry.uuid,
                }
        elif entry.type == "user":
            results = [b for b in entry.blocks if b.kind == "tool_result"]
            for block in results:
                call = calls.get(block.tool_use_id or "")
                if call is None:
                    continue
                call["result"] = block.text
                call["is_error"] = block.is_error
                call["result_timestamp"] = entry.timestamp
                if len(results) == 1:
                    call["result_data"] = entry.tool_use_result
    return [ToolCall(**c) for c in calls.values()]


def is_sibling_cancel(call: ToolCall) -> bool:
    """True when the call failed only because a parallel sibling call failed."""
    return call.is_error and SIBLING_CANCEL_TEXT in (call.result or "")


def error_text(call: ToolCall, limit: int = 2000) -> str:
    """The error message of a failed call, without ``<tool_use_error>`` tags, trimmed."""
    text = _TOOL_ERROR_TAG.sub("", call.result or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path(call: ToolCall) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def target_of(call: ToolCall) -> str | None:
    """What a call acts on: the file of a file tool, the command of Bash, else the input."""
    if call.name in FILE_TOOLS:
        return _path(call)
    if call.name == "Bash":
        command = call.input.get("command")
        return " ".join(command.split()) if isinstance(command, str) and command.strip() else None
    if not call.input:
        return None
    return json.dumps(call.input, sort_keys=True, ensure_ascii=False, default=str)


def action_class(call: ToolCall) -> str:
    """Calls in the same class on the same target can fix each other's errors."""
    if call.name in MODIFY_TOOLS:
        return "modify"
    if call.name in FILE_TOOLS:
        return "read"
    return call.name


def action_signature(call: ToolCall) -> str:
    """Tool name plus canonical input (noise keys such as ``description`` left out)."""
    data = {k: v for k, v in call.input.items() if k not in {"description", "timeout"}}
    return call.name + " " + json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
