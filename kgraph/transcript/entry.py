"""One transcript entry (a JSON object from a line) and its content blocks, with tolerant
accessors: every field is optional, unknown entry and block types are kept as ``"unknown"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

ENTRY_KINDS = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "attachment",
        "pr-link",
        "agent-name",
        "custom-title",
        "last-prompt",
        "permission-mode",
        "ai-title",
        "agent-setting",
        "bridge-session",
        "worktree-state",
        "mode",
        "attribution-snapshot",
        "cost-state",
    }
)
BLOCK_KINDS = frozenset(
    {
        "text",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "image",
        "document",
        "tool_reference",
        "server_tool_use",
        "advisor_tool_result",
    }
)


@dataclass(frozen=True, slots=True)
class Block:
    """One content block of a message. ``kind`` is ``type`` when known, else ``"unknown"``."""

    type: str
    kind: str
    raw: dict[str, Any]

    @property
    def text(self) -> str:
        """The block's text: ``text``/``thinking`` field, or a tool result's content as text."""
        if self.kind == "tool_result":
            return content_text(self.raw.get("content"))
        value = self.raw.get("text", self.raw.get("thinking"))
        return value if isinstance(value, str) else ""

    @property
    def id(self) -> str | None:
        return _str(self.raw.get("id"))

    @property
    def name(self) -> str | None:
        return _str(self.raw.get("name"))

    @property
    def input(self) -> dict[str, Any]:
        value = self.raw.get("input")
        return value if isinstance(value, dict) else {}

    @property
    def tool_use_id(self) -> str | None:
        return _str(self.raw.get("tool_use_id"))

    @property
    def is_error(self) -> bool:
        return self.raw.get("is_error") is True


@dataclass(frozen=True, slots=True, eq=False)
class Entry:
    """One JSON object from a transcript line. Every accessor tolerates a missing field.

    ``offset`` is the byte offset of the line it came from (several objects may share one).
    """

    raw: dict[str, Any]
    offset: int = 0
    _blocks: list[Block] = field(default_factory=list, repr=False, compare=False)

    @property
    def type(self) -> str:
        value = self.raw.get("type")
        return value if isinstance(value, str) and value else "unknown"

    @property
    def kind(self) -> str:
        """``type`` when it is a known entry type, else ``"unknown"``."""
        return self.type if self.type in ENTRY_KINDS else "unknown"

    @property
    def uuid(self) -> str | None:
        return _str(self.raw.get("uuid"))

    @property
    def parent_uuid(self) -> str | None:
        return _str(self.raw.get("parentUuid"))

    @property
    def logical_parent_uuid(self) -> str | None:
        return _str(self.raw.get("logicalParentUuid"))

    @property
    def timestamp(self) -> str | None:
        return _str(self.raw.get("timestamp"))

    @property
    def time(self) -> datetime | None:
        """``timestamp`` parsed (RFC 3339, with or without fractions); None if absent/invalid."""
        return parse_timestamp(self.timestamp)

    @property
    def session_id(self) -> str | None:
        return _str(self.raw.get("sessionId"))

    @property
    def cwd(self) -> str | None:
        return _str(self.raw.get("cwd"))

    @property
    def git_branch(self) -> str | None:
        return _str(self.raw.get("gitBranch"))

    @property
    def version(self) -> str | None:
        return _str(self.raw.get("version"))

    @property
    def agent_id(self) -> str | None:
        return _str(self.raw.get("agentId"))

    @property
    def is_sidechain(self) -> bool:
        return self.raw.get("isSidechain") is True

    @property
    def is_meta(self) -> bool:
        return self.raw.get("isMeta") is True

    @property
    def is_compact_summary(self) -> bool:
        return self.raw.get("isCompactSummary") is True

    @property
    def subtype(self) -> str | None:
        """``subtype`` of system entries; ``data.type`` of progress; ``attachment.type``."""
        if self.type == "progress":
            data = self.raw.get("data")
            return _str(data.get("type")) if isinstance(data, dict) else None
        if self.type == "attachment":
            attachment = self.raw.get("attachment")
            return _str(attachment.get("type")) if isinstance(attachment, dict) else None
        return _str(self.raw.get("subtype"))

    @property
    def message(self) -> dict[str, Any]:
        value = self.raw.get("message")
        return value if isinstance(value, dict) else {}

    @property
    def message_id(self) -> str | None:
        return _str(self.message.get("id"))

    @property
    def stop_reason(self) -> str | None:
        """``stop_reason`` at the top level or inside ``message`` (both occur)."""
        return _str(self.raw.get("stop_reason")) or _str(self.message.get("stop_reason"))

    @property
    def content(self) -> str | list[Any] | None:
        """``message.content`` as written: a string, a list of blocks, or None."""
        value = self.message.get("content")
        return value if isinstance(value, str | list) else None

    @property
    def blocks(self) -> list[Block]:
        """Content blocks (a string content is one text block). Parsed once, then cached."""
        if not self._blocks:
            self._blocks.extend(_parse_blocks(self.content))
        return self._blocks

    @property
    def text(self) -> str:
        """The text of the message: the string content, or its text blocks joined."""
        content = self.content
        if isinstance(content, str):
            return content
        return "\n".join(b.text for b in self.blocks if b.kind == "text" and b.text)

    @property
    def tool_use_result(self) -> Any:
        """Top-level ``toolUseResult`` of a tool-result line (dict, str, list or None)."""
        return self.raw.get("toolUseResult")

    @property
    def is_tool_result(self) -> bool:
        """A user line carrying tool results (not something the user typed)."""
        return self.type == "user" and any(b.kind == "tool_result" for b in self.blocks)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _parse_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [Block("text", "text", {"type": "text", "text": content})]
    if not isinstance(content, list):
        return []
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(Block("text", "text", {"type": "text", "text": item}))
        elif isinstance(item, dict):
            raw_type = item.get("type")
            block_type = raw_type if isinstance(raw_type, str) and raw_type else "unknown"
            kind = block_type if block_type in BLOCK_KINDS else "unknown"
            blocks.append(Block(block_type, kind, item))
    return blocks


def content_text(content: Any) -> str:
    """Text of a tool_result ``content``: a string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
        return "\n".join(parts)
    return ""


def parse_timestamp(value: str | None) -> datetime | None:
    """Parse an RFC 3339 timestamp with or without fractional seconds; None when invalid.

    A timestamp without an offset is taken as UTC (Claude Code writes UTC).
    """
    if not value or not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().upper())
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
