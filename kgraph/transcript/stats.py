"""Whole-file summaries of a transcript (``kgraph transcript stats``) and session status."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgraph.transcript import views
from kgraph.transcript.discovery import agent_id_from_name, find_subagents, is_compaction_agent
from kgraph.transcript.reader import Entry, ReadStats, iter_entries, read_tail
from kgraph.transcript.stuck import StuckReport, StuckThresholds, detect_stuck

# Enough of the tail to hold the last 20 tool calls with their results, even in 2.1.x files
# where progress lines are most of the file.
STATUS_TAIL_ENTRIES = 600
_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


@dataclass(frozen=True)
class TranscriptStats:
    """Counts over one transcript. ``types`` counts every JSON object, duplicates included
    (as a byte-level census); the derived counts are over uuid-deduplicated entries. Token
    totals count each API response (``message.id``) once."""

    path: str
    entries: int
    unique_entries: int
    malformed: int
    partial_last_line: bool
    types: dict[str, int]
    subtypes: dict[str, dict[str, int]]
    tool_calls: int
    tool_errors: int
    files_read: int
    files_edited: int
    commands: int
    compactions: int
    microcompactions: int
    subagents: int
    compaction_agents: int
    sidechain_entries: int
    session_ids: list[str]
    versions: list[str]
    first_timestamp: str | None
    last_timestamp: str | None
    assistant_messages: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "entries": self.entries,
            "unique_entries": self.unique_entries,
            "malformed": self.malformed,
            "partial_last_line": self.partial_last_line,
            "types": self.types,
            "subtypes": self.subtypes,
            "tool_calls": self.tool_calls,
            "tool_errors": self.tool_errors,
            "files_read": self.files_read,
            "files_edited": self.files_edited,
            "commands": self.commands,
            "compactions": self.compactions,
            "microcompactions": self.microcompactions,
            "subagents": self.subagents,
            "compaction_agents": self.compaction_agents,
            "sidechain_entries": self.sidechain_entries,
            "session_ids": self.session_ids,
            "versions": self.versions,
            "first_timestamp": self.first_timestamp,
            "last_timestamp": self.last_timestamp,
            "assistant_messages": self.assistant_messages,
            "tokens": self.tokens,
            "files": self.files,
        }


def transcript_stats(
    path: str | os.PathLike[str], *, progress: Callable[[int], None] | None = None
) -> TranscriptStats:
    """Read ``path`` once and summarise it. Raises NotFoundError/KgraphError if unreadable.

    ``progress``, if given, is called now and then with the bytes read so far.
    """
    read = ReadStats()
    raw_entries = []
    reported = 0
    for entry in iter_entries(path, stats=read):
        raw_entries.append(entry)
        if progress is not None and read.end_offset - reported >= 1 << 20:
            reported = read.end_offset
            progress(reported)
    if progress is not None:
        progress(read.end_offset)
    types = Counter(e.type for e in raw_entries)
    subtypes: dict[str, Counter[str]] = {}
    for entry in raw_entries:
        subtype = entry.subtype
        if subtype and entry.type in {"system", "progress", "attachment"}:
            subtypes.setdefault(entry.type, Counter())[subtype] += 1
    entries = views.dedupe(raw_entries)
    touched = views.files_touched(entries)
    calls = views.tool_calls(entries)
    tool_errors = sum(
        1
        for e in entries
        if e.type == "user"
        for b in e.blocks
        if b.kind == "tool_result" and b.is_error
    )
    boundaries = views.compaction_boundaries(entries)
    agent_ids, compaction_ids = _subagent_ids(Path(path), entries)
    timestamps = [t for t in (e.timestamp for e in entries) if t]
    messages = views.assistant_messages(entries)
    tokens = dict.fromkeys(_TOKEN_KEYS, 0)
    for message in messages:
        for key in _TOKEN_KEYS:
            value = message.usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                tokens[key] += value
    return TranscriptStats(
        path=str(path),
        entries=len(raw_entries),
        unique_entries=len(entries),
        malformed=read.malformed,
        partial_last_line=read.partial_last_line,
        types=dict(sorted(types.items())),
        subtypes={k: dict(sorted(v.items())) for k, v in sorted(subtypes.items())},
        tool_calls=len(calls),
        tool_errors=tool_errors,
        files_read=len(touched.read),
        files_edited=len(touched.edited),
        commands=len(touched.commands),
        compactions=sum(1 for b in boundaries if b.kind == "compact"),
        microcompactions=sum(1 for b in boundaries if b.kind == "microcompact"),
        subagents=len(agent_ids),
        compaction_agents=len(compaction_ids),
        sidechain_entries=sum(1 for e in entries if e.is_sidechain),
        session_ids=sorted({e.session_id for e in entries if e.session_id}),
        versions=sorted({e.version for e in entries if e.version}),
        first_timestamp=min(timestamps) if timestamps else None,
        last_timestamp=max(timestamps) if timestamps else None,
        assistant_messages=len(messages),
        tokens=tokens,
        files={"read": sorted(touched.read), "edited": sorted(touched.edited)},
    )


def _subagent_ids(path: Path, entries: list[Entry]) -> tuple[set[str], set[str]]:
    """Distinct subagents of the session in ``path``: from agent_progress lines, Task/Agent
    results, subagent files on disk (both layouts) and inline sidechain runs."""
    own = agent_id_from_name(path.name)
    agents: set[str] = set()
    for entry in entries:
        if entry.type == "progress":
            data = entry.raw.get("data")
            if isinstance(data, dict) and data.get("type") == "agent_progress":
                agent_id = data.get("agentId")
                if isinstance(agent_id, str) and agent_id:
                    agents.add(agent_id)
        result = entry.tool_use_result
        if entry.type == "user" and isinstance(result, dict):
            agent_id = result.get("agentId")
            if isinstance(agent_id, str) and agent_id:
                agents.add(agent_id)
    if own is None:  # a session file: look for subagent files and inline sidechains
        for sub in find_subagents(path):
            if not sub.is_warmup:
                agents.add(sub.agent_id)
    agents.discard(own or "")
    compaction = {a for a in agents if is_compaction_agent(a)}
    return agents - compaction, compaction


@dataclass(frozen=True)
class SessionStatus:
    """``state`` is ``working``, ``waiting``, ``stuck`` or ``unknown``; ``stuck`` carries the
    pattern (it is also reported, with the underlying state, when the agent is waiting)."""

    path: str
    session_id: str | None
    state: str
    base_state: views.SessionState
    stuck: StuckReport | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "session_id": self.session_id,
            "state": self.state,
            "stop_reason": self.base_state.stop_reason,
            "timestamp": self.base_state.timestamp,
            "reason": self.base_state.reason,
            "stuck": self.stuck.to_dict() if self.stuck else None,
        }


def session_status(
    path: str | os.PathLike[str],
    thresholds: StuckThresholds | None = None,
    *,
    tail: int = STATUS_TAIL_ENTRIES,
) -> SessionStatus:
    """Working / waiting / stuck for the session in ``path``, from its tail only."""
    entries = read_tail(path, tail)
    main = [e for e in entries if not e.is_sidechain] or entries
    state = views.session_state(entries)
    stuck = detect_stuck(views.tool_calls(main), thresholds)
    label = "stuck" if stuck is not None and state.state != "waiting" else state.state
    session_id = next((e.session_id for e in reversed(entries) if e.session_id), None)
    return SessionStatus(str(path), session_id, label, state, stuck)
