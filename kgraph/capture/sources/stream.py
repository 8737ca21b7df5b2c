"""A session's main conversation as one ordered stream: what the user said, what the agent
said, and the tools it ran — the shape the knowledge extractors walk.

Built from transcript entries in file order (deduplicated by uuid), main chain only (a
subagent's side conversation is its own). The user speaks in four places: prompts, text
typed while a tool ran (a ``text`` block on a tool-result line), prompts queued while the
agent worked (``queue-operation`` enqueue), and the reason given when rejecting a tool call
("… the user said:\\n<text>"). All four are corrections and decisions in the same voice, so
all four are ``Said(who="user")``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgraph.transcript.markers import strip_kgraph_context

REJECTION_MARK = "the user said:\n"


@dataclass(frozen=True)
class Said:
    who: str  # "user" | "assistant"
    text: str
    via: str = "prompt"  # user: prompt | aside | queued | rejection; assistant: text | thinking
    turn_end: bool = False  # assistant: the last text before the user speaks again


@dataclass(frozen=True)
class Ran:
    name: str
    input: dict[str, Any]
    result: str
    is_error: bool
    call_id: str


Event = Said | Ran


def _user_text(entry: Any) -> str | None:
    from kgraph.transcript.conversation import prompt_text

    if entry.is_meta or entry.is_compact_summary:
        return None
    return prompt_text(entry)


def _rejection_reason(result: str) -> str | None:
    position = result.find(REJECTION_MARK)
    if position < 0:
        return None
    reason = result[position + len(REJECTION_MARK) :].strip()
    return reason or None


def _mark_turn_ends(events: list[Event]) -> list[Event]:
    """Set ``turn_end`` on each assistant text followed by no other before the user speaks."""
    marked = list(events)
    last_assistant: int | None = None
    for index, event in enumerate(events):
        if isinstance(event, Said) and event.via == "text":
            last_assistant = index
        elif isinstance(event, Said) and event.via in ("prompt", "queued"):
            if last_assistant is not None:
                said = marked[last_assistant]
                assert isinstance(said, Said)
                marked[last_assistant] = Said(said.who, said.text, said.via, True)
            last_assistant = None
    if last_assistant is not None:
        said = marked[last_assistant]
        assert isinstance(said, Said)
        marked[last_assistant] = Said(said.who, said.text, said.via, True)
    return marked


def conversation(entries: Sequence[Any]) -> list[Event]:
    """The main conversation of ``entries`` (transcript entries) as ordered events."""
    from kgraph.transcript.views import dedupe, tool_calls

    entries = [e for e in dedupe(entries) if not e.is_sidechain]
    calls = {call.id: call for call in tool_calls(entries)}
    events: list[Event] = []
    seen_texts: set[str] = set()
    for entry in entries:
        if entry.type == "assistant":
            for block in entry.blocks:
                if block.kind == "text":
                    text = strip_kgraph_context(block.text).strip()
                    if text and text not in seen_texts:
                        seen_texts.add(text)
                        events.append(Said("assistant", text, "text"))
                elif block.kind == "thinking" and block.text.strip():
                    events.append(Said("assistant", block.text.strip(), "thinking"))
                elif block.kind == "tool_use" and block.id in calls:
                    call = calls[block.id]
                    events.append(
                        Ran(call.name, call.input, call.result or "", call.is_error, call.id)
                    )
        elif entry.type == "user":
            if entry.is_tool_result:
                for block in entry.blocks:
                    if block.kind == "tool_result" and block.is_error:
                        reason = _rejection_reason(block.text)
                        if reason:
                            events.append(Said("user", reason, "rejection"))
                    elif block.kind == "text" and block.text.strip():
                        aside = strip_kgraph_context(block.text).strip()
                        if aside and not aside.startswith("[Request interrupted"):
                            events.append(Said("user", aside, "aside"))
                continue
            prompt = _user_text(entry)
            if prompt:
                events.append(Said("user", prompt, "prompt"))
        elif entry.type == "queue-operation" and entry.raw.get("operation") == "enqueue":
            content = entry.raw.get("content")
            if isinstance(content, str) and content.strip():
                events.append(Said("user", content.strip(), "queued"))
    return _mark_turn_ends(events)
