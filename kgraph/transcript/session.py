"""Session-level views: compaction boundaries and summaries, and working/waiting state.

Like every view, each function deduplicates entries by uuid and tolerates missing fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgraph.transcript.conversation import prompt_text
from kgraph.transcript.entry import Entry
from kgraph.transcript.markers import (
    COMPACT_SUMMARY_PREFIX,
    classify_user_text,
    strip_kgraph_context,
)
from kgraph.transcript.toolcalls import dedupe

# ----------------------------------------------------------------------------- compaction


@dataclass(frozen=True)
class CompactionBoundary:
    """A ``compact_boundary`` (``kind="compact"``) or ``microcompact_boundary`` line."""

    kind: str
    uuid: str | None
    timestamp: str | None
    trigger: str | None
    pre_tokens: int | None
    logical_parent_uuid: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "uuid": self.uuid,
            "timestamp": self.timestamp,
            "trigger": self.trigger,
            "pre_tokens": self.pre_tokens,
            "logical_parent_uuid": self.logical_parent_uuid,
        }


def compaction_boundaries(entries: Iterable[Entry]) -> list[CompactionBoundary]:
    """Compaction boundaries in file order (full and micro)."""
    found = []
    for entry in dedupe(entries):
        if entry.type != "system" or entry.subtype not in {
            "compact_boundary",
            "microcompact_boundary",
        }:
            continue
        kind = "compact" if entry.subtype == "compact_boundary" else "microcompact"
        meta = entry.raw.get("compactMetadata") or entry.raw.get("microcompactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        trigger = meta.get("trigger")
        pre_tokens = meta.get("preTokens")
        found.append(
            CompactionBoundary(
                kind,
                entry.uuid,
                entry.timestamp,
                trigger if isinstance(trigger, str) else None,
                pre_tokens if isinstance(pre_tokens, int) else None,
                entry.logical_parent_uuid,
            )
        )
    return found


def compaction_summaries(entries: Iterable[Entry]) -> list[str]:
    """The summary texts written after compactions (kgraph context stripped), in order.

    In a session file these are the ``isCompactSummary`` user lines; in a compaction agent's
    own file (``agent-acompact-*``) it is the agent's final text.
    """
    entries = dedupe(entries)
    summaries = []
    for entry in entries:
        if entry.type != "user" or entry.is_tool_result:
            continue
        text = entry.text
        if entry.is_compact_summary or text.lstrip().startswith(COMPACT_SUMMARY_PREFIX):
            cleaned = strip_kgraph_context(text)
            if cleaned:
                summaries.append(cleaned)
    if (
        not summaries
        and entries
        and all(
            (e.agent_id or "").startswith("acompact-") for e in entries if e.agent_id is not None
        )
        and any(e.agent_id for e in entries)
    ):
        for entry in reversed(entries):
            if entry.type == "assistant" and entry.text.strip():
                summaries.append(strip_kgraph_context(entry.text))
                break
    return summaries


# ----------------------------------------------------------------------------- state


@dataclass(frozen=True)
class SessionState:
    """``state`` is ``"working"``, ``"waiting"`` (for the user) or ``"unknown"``.

    ``stop_reason`` is the last assistant entry's (top level or in ``message``); ``reason``
    says what decided the state.
    """

    state: str
    stop_reason: str | None
    timestamp: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "stop_reason": self.stop_reason,
            "timestamp": self.timestamp,
            "reason": self.reason,
        }


_TURN_END_SUBTYPES = frozenset({"turn_duration", "stop_hook_summary"})


def session_state(entries: Iterable[Entry]) -> SessionState:
    """Whether the main agent is working or waiting for the user, from the latest entries.

    ``stop_reason`` ``end_turn``/``stop_sequence`` → waiting, ``tool_use`` → working. Recent
    versions leave ``stop_reason`` null on most lines, so a null one is read from the content
    (a tool_use block → working, text only → waiting) and from what follows it (a tool result
    or a new prompt → working; a turn-end system line → waiting).
    """
    entries = dedupe(entries)
    # In a subagent's own file every line is a sidechain: then the sidechain is the main chain.
    own_chain = all(e.is_sidechain for e in entries if e.type in {"user", "assistant"})
    last_stop: str | None = None
    for entry in reversed(entries):
        if entry.is_sidechain and not own_chain:
            continue
        if entry.type == "system" and entry.subtype in _TURN_END_SUBTYPES:
            return SessionState("waiting", None, entry.timestamp, f"system {entry.subtype}")
        if entry.type == "user" and not entry.is_meta:
            if entry.is_tool_result:
                return SessionState("working", None, entry.timestamp, "tool result pending reply")
            if classify_user_text(entry.text) == "interrupted":
                return SessionState("waiting", None, entry.timestamp, "interrupted by user")
            if prompt_text(entry) or (own_chain and entry.text.strip()):
                return SessionState("working", None, entry.timestamp, "user prompt")
            continue
        if entry.type == "assistant":
            last_stop = entry.stop_reason
            if last_stop in {"end_turn", "stop_sequence"}:
                return SessionState("waiting", last_stop, entry.timestamp, "stop_reason")
            if last_stop == "tool_use":
                return SessionState("working", last_stop, entry.timestamp, "stop_reason")
            if any(b.kind == "tool_use" for b in entry.blocks):
                return SessionState("working", last_stop, entry.timestamp, "tool_use block")
            if entry.text.strip():
                return SessionState("waiting", last_stop, entry.timestamp, "assistant text")
    return SessionState("unknown", last_stop, None, "no assistant or user entry")
