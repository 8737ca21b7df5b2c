"""Conversation views: real user prompts, Q&A pairs, compaction, and session state.

Like every view, each function deduplicates entries by uuid and tolerates missing fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kgraph.transcript.entry import Block, Entry
from kgraph.transcript.markers import (
    classify_user_text,
    has_kgraph_context,
    slash_command,
    strip_kgraph_context,
    strip_markers,
)
from kgraph.transcript.toolcalls import dedupe, tool_calls

ASK_TOOLS = frozenset({"AskUserQuestion"})
_ANSWER_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')


# ----------------------------------------------------------------------------- messages


@dataclass(frozen=True)
class AssistantMessage:
    """One API response: the assistant lines sharing ``message.id``, blocks merged in file order.

    Claude Code writes one line per content block (thinking, text, tool_use); older versions
    may repeat blocks, so identical blocks are kept once. ``usage`` is the last line's.
    """

    message_id: str
    uuids: tuple[str, ...]
    blocks: tuple[Block, ...]
    stop_reason: str | None
    timestamp: str | None
    model: str | None
    is_sidechain: bool
    usage: dict[str, Any]

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.blocks if b.kind == "text" and b.text)


def assistant_messages(entries: Iterable[Entry]) -> list[AssistantMessage]:
    """Assistant entries merged by ``message.id`` (an entry without an id stands alone)."""
    merged: dict[str, dict[str, Any]] = {}
    for position, entry in enumerate(dedupe(entries)):
        if entry.type != "assistant":
            continue
        key = entry.message_id or f"#{position}"
        item = merged.get(key)
        if item is None:
            item = merged[key] = {
                "message_id": key,
                "uuids": [],
                "blocks": [],
                "seen": set(),
                "stop_reason": None,
                "timestamp": entry.timestamp,
                "model": entry.message.get("model"),
                "is_sidechain": entry.is_sidechain,
                "usage": {},
            }
        if entry.uuid:
            item["uuids"].append(entry.uuid)
        for block in entry.blocks:
            identity = block.id or repr(sorted(block.raw.items(), key=lambda kv: kv[0]))
            if identity not in item["seen"]:
                item["seen"].add(identity)
                item["blocks"].append(block)
        item["stop_reason"] = entry.stop_reason or item["stop_reason"]
        usage = entry.message.get("usage")
        if isinstance(usage, dict):
            item["usage"] = usage
    return [
        AssistantMessage(
            i["message_id"],
            tuple(i["uuids"]),
            tuple(i["blocks"]),
            i["stop_reason"],
            i["timestamp"],
            i["model"] if isinstance(i["model"], str) else None,
            i["is_sidechain"],
            i["usage"],
        )
        for i in merged.values()
    ]


# ----------------------------------------------------------------------------- branches


def active_branch(entries: Iterable[Entry]) -> list[Entry]:
    """The entries on the conversation's current branch, oldest first.

    The file is a tree (rewinds and edits leave abandoned branches). The leaf is the last
    ``last-prompt`` line's ``leafUuid`` when it names a known entry, else the newest main-chain
    user/assistant entry; the branch is found by walking ``parentUuid`` up, continuing through
    a compaction boundary via ``logicalParentUuid``. Entries without a uuid are on no branch.
    """
    entries = dedupe(entries)
    by_uuid = {e.uuid: e for e in entries if e.uuid is not None}
    leaf: Entry | None = None
    for entry in reversed(entries):
        if entry.type == "last-prompt":
            named = entry.raw.get("leafUuid")
            if isinstance(named, str) and named in by_uuid:
                leaf = by_uuid[named]
                break
    if leaf is None:
        leaf = next(
            (
                e
                for e in reversed(entries)
                if e.uuid is not None and e.type in {"user", "assistant"} and not e.is_sidechain
            ),
            None,
        )
    chain: list[Entry] = []
    seen: set[str] = set()
    current = leaf
    while current is not None and current.uuid is not None and current.uuid not in seen:
        seen.add(current.uuid)
        chain.append(current)
        parent = current.parent_uuid or current.logical_parent_uuid
        current = by_uuid.get(parent) if parent is not None else None
    chain.reverse()
    return chain


# ----------------------------------------------------------------------------- injected context


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < 4 and isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def is_kgraph_injected(entry: Entry) -> bool:
    """True for an entry that only carries context kgraph itself injected.

    That is an ``attachment`` (``hook_success``, ``hook_additional_context``, ...) or a hook
    ``progress``/``system`` line whose text holds ``<kgraph-context>``, or a user line whose
    text is nothing but kgraph context. Capture skips these so kgraph never re-learns itself.
    """
    if entry.type in {"attachment", "progress", "system"}:
        payload = entry.raw.get("attachment", entry.raw.get("data", entry.raw.get("content")))
        return any(has_kgraph_context(text) for text in _strings(payload))
    if entry.type == "user" and not entry.is_tool_result:
        return classify_user_text(entry.text) == "kgraph_context"
    return False


# ----------------------------------------------------------------------------- prompts, Q&A


def is_prompt_entry(entry: Entry, include_sidechains: bool) -> bool:
    return (
        entry.type == "user"
        and not entry.is_meta
        and not entry.is_compact_summary
        and (include_sidechains or not entry.is_sidechain)
        and not entry.is_tool_result
    )


def prompt_text(entry: Entry) -> str | None:
    """The prompt a user typed on this entry (markers stripped), or None if it is protocol."""
    text = entry.text
    kind = classify_user_text(text)
    if kind == "prompt":
        return strip_markers(text)
    if kind == "command":
        command = slash_command(text)
        if command and " " in command:  # a bare "/clear" is not intent; "/fix 42" is
            return command
    return None


def user_prompts(entries: Iterable[Entry], *, include_sidechains: bool = False) -> list[str]:
    """What the user actually typed, in order.

    Tool results, meta lines (expanded commands, caveats), compaction summaries, protocol text
    (command output, shell mode, task notifications, interruptions) and kgraph's own
    ``<kgraph-context>`` are excluded; system reminders are stripped. Subagent prompts (written
    by the parent agent, not the user) are left out unless ``include_sidechains``.
    """
    prompts = []
    for entry in dedupe(entries):
        if is_prompt_entry(entry, include_sidechains):
            text = prompt_text(entry)
            if text:
                prompts.append(text)
    return prompts


@dataclass(frozen=True)
class QAPair:
    """A question and its answer. ``source`` is ``"chat"`` (a user prompt and the assistant's
    reply) or ``"ask_user_question"`` (the agent asked, the user decided)."""

    question: str
    answer: str
    source: str
    timestamp: str | None = None
    ref: str | None = None
    options: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "source": self.source,
            "timestamp": self.timestamp,
            "ref": self.ref,
            "options": list(self.options),
        }


def qa_pairs(entries: Iterable[Entry], *, include_sidechains: bool = False) -> list[QAPair]:
    """Q&A pairs: user prompts with the assistant text of their turn, and AskUserQuestion answers.

    A turn is found by threading ``parentUuid`` from the prompt down to the next real prompt
    (tool results, progress and system lines are traversed, never treated as questions).
    """
    entries = dedupe(entries)
    children: dict[str, list[Entry]] = {}
    for entry in entries:
        parent = entry.parent_uuid
        if parent is not None:
            children.setdefault(parent, []).append(entry)
    pairs: list[tuple[int, QAPair]] = []
    for position, entry in enumerate(entries):
        if not is_prompt_entry(entry, include_sidechains) or entry.uuid is None:
            continue
        question = prompt_text(entry)
        if not question:
            continue
        answer = _turn_answer(entry.uuid, children, entry.is_sidechain, include_sidechains)
        if answer:
            pairs.append((position, QAPair(question, answer, "chat", entry.timestamp, entry.uuid)))
    result = [pair for _, pair in pairs]
    result.extend(_ask_user_answers(entries, include_sidechains))
    result.sort(key=lambda p: p.timestamp or "")
    return result


def _turn_answer(
    root: str, children: dict[str, list[Entry]], in_sidechain: bool, include_sidechains: bool
) -> str:
    texts: list[str] = []
    stack = list(reversed(children.get(root, [])))
    seen: set[int] = set()
    while stack:
        entry = stack.pop()
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        if entry.is_sidechain != in_sidechain:
            continue  # a subagent's turn is not the parent's answer
        if is_prompt_entry(entry, True) and prompt_text(entry):
            continue  # the next question starts here
        if entry.type == "assistant":
            for block in entry.blocks:
                if block.kind == "text":
                    text = strip_kgraph_context(block.text)
                    if text and text not in texts:
                        texts.append(text)
        if entry.uuid is not None:
            stack.extend(reversed(children.get(entry.uuid, [])))
    return "\n\n".join(texts)


def _ask_user_answers(entries: Sequence[Entry], include_sidechains: bool) -> list[QAPair]:
    pairs: list[QAPair] = []
    for call in tool_calls(entries):
        if call.name not in ASK_TOOLS or not call.has_result or call.is_error:
            continue
        if call.is_sidechain and not include_sidechains:
            continue
        answers: dict[str, str] = {}
        if isinstance(call.result_data, dict) and isinstance(call.result_data.get("answers"), dict):
            answers = {str(k): str(v) for k, v in call.result_data["answers"].items()}
        else:
            for question, answer in _ANSWER_PAIR.findall(call.result or ""):
                answers[question.replace('\\"', '"')] = answer.replace('\\"', '"')
        questions = call.input.get("questions")
        for item in questions if isinstance(questions, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                continue
            text = item["question"]
            if text not in answers:
                continue
            options = tuple(
                str(o.get("label"))
                for o in item.get("options") or []
                if isinstance(o, dict) and o.get("label") is not None
            )
            pairs.append(
                QAPair(text, answers[text], "ask_user_question", call.timestamp, call.id, options)
            )
    return pairs
