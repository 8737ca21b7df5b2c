"""Knowledge candidates and session facts from transcript entries (via kgraph.transcript).

- error → fix: a command that failed and later succeeded after a change becomes a Mistake
  (what failed, with the error) that LED_TO a Learning (what changed to fix it). Failures
  fixed by retrying unchanged and Claude Code's own tool-protocol errors are not knowledge;
- the user's answers to the agent's questions (AskUserQuestion, or a chat turn that ended
  in a question) become Learnings;
- explicit statements in prompts — "remember this", "lesson:", "always ...", "never ...",
  "from now on" — become Learnings (remember/lesson) or Patterns (rules);
- files read and edited, compaction summaries and the time span are session facts.

kgraph's own injected ``<kgraph-context>`` is stripped by the transcript views, so it is
never learned back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from kgraph.capture.candidates import Candidate, relative_to_root, relativise_text, text_hash

MAX_ERROR_CHARS = 400
MAX_ANSWER_CHARS = 600
MAX_STATEMENT_CHARS = 500
_PROTOCOL_ERRORS = re.compile(
    r"has not been read yet|modified since (?:it was )?read|string to replace not found|"
    r"found \d+ matches of the string|user (?:doesn't|does not) want|rejected|"
    r"interrupted by user|permission|<tool_use_error>|no such tool|"
    r"InputValidationError|was blocked|hook",
    re.IGNORECASE,
)
_ERROR_LINE = re.compile(
    r"error|exception|failed|failure|fatal|traceback|not found|cannot|can't|unable|invalid|denied",
    re.IGNORECASE,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_LEARNING_TRIGGER = re.compile(
    r"\b(?:remember (?:this|that)|lessons? learned|lesson\s*:|note for (?:the )?future|"
    r"for future reference|keep in mind|important to know)\b",
    re.IGNORECASE,
)
_RULE_TRIGGER = re.compile(
    r"(?:^(?:please\s+|and\s+|so\s+|also\s+)?(?:always|never|don'?t ever|do not ever)\b)|"
    r"\b(?:should|must|need to|have to|we|you)\s+(?:always|never)\b|\bfrom now on\b|"
    r"\bmake sure (?:to|you) always\b",
    re.IGNORECASE,
)
_TRIGGER_PREFIX = re.compile(
    r"^\s*(?:please\s+)?(?:remember (?:this|that)|lessons? learned|lesson|note for (?:the )?future|"
    r"for future reference|keep in mind)\s*[:,-]?\s*",
    re.IGNORECASE,
)
_PROCEED_QUESTION = re.compile(
    r"\b(?:shall i|should i (?:proceed|continue|go ahead)|do you want me to|would you like me to|"
    r"want me to|ready to|anything else|is there anything|can i proceed|okay to)\b",
    re.IGNORECASE,
)
_AFFIRMATION = re.compile(
    r"^\s*(?:y|yes|yeah|yep|ok|okay|sure|go|go ahead|do it|please do|proceed|continue|no|nope|"
    r"thanks|thank you|lgtm|sounds good|perfect|great)\b[\s.!,]*(?:please|thanks)?[\s.!]*$",
    re.IGNORECASE,
)


# A reply that asks for something else is a new request, not an answer.
_NEW_REQUEST = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|now|first|then)[,\s]+)*(?:can you|could you|would you|please|let'?s|"
    r"go ahead and|i want you to)\b|.*\?\s*$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass
class TranscriptFacts:
    candidates: list[Candidate] = field(default_factory=list)
    files_read: set[str] = field(default_factory=set)
    files_edited: set[str] = field(default_factory=set)
    compaction_summaries: list[str] = field(default_factory=list)
    compaction_ids: set[str] = field(default_factory=set)
    first_ts: str | None = None
    last_ts: str | None = None
    branch: str | None = None  # the git branch the session was on (its last one)
    prompts: list[str] = field(default_factory=list)
    # Prompts and agent replies after the previous watermark (for model extraction).
    new_prompts: list[str] = field(default_factory=list)
    new_assistant_texts: list[str] = field(default_factory=list)


def _error_excerpt(error: str) -> str:
    """The informative lines of an error (those naming an error), at most MAX_ERROR_CHARS."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    picked = [line for line in lines if _ERROR_LINE.search(line)][:3] or lines[-3:]
    text = " | ".join(picked)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def error_fix_candidates(entries: Sequence[Any], root: Path, session_id: str) -> list[Candidate]:
    from kgraph.transcript.views import EDIT_TOOLS, WRITE_TOOLS, error_fix_sequences, tool_calls

    calls = tool_calls(entries)
    index = {call.id: i for i, call in enumerate(calls)}
    found: list[Candidate] = []
    for seq in error_fix_sequences(calls):
        if seq.tool in ("Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "AskUserQuestion"):
            continue
        if seq.fix == "retried unchanged" or _PROTOCOL_ERRORS.search(seq.error or ""):
            continue
        start, end = index.get(seq.error_call_id), index.get(seq.fix_call_id)
        files: list[str] = []
        if start is not None and end is not None:
            for call in calls[start : end + 1]:
                if call.name in EDIT_TOOLS | WRITE_TOOLS and not call.is_error:
                    path = call.input.get("file_path") or call.input.get("notebook_path")
                    rel = relative_to_root(path, root) if isinstance(path, str) else None
                    if rel and rel not in files:
                        files.append(rel)
        target_rel = (
            relative_to_root(seq.target, root)
            if seq.tool != "Bash" and seq.target.startswith("/")
            else None
        )
        if target_rel and target_rel not in files:
            files.insert(0, target_rel)
        target = _short(relativise_text(seq.target, root), 200)
        error = relativise_text(_error_excerpt(seq.error or ""), root)
        fix = _short(relativise_text(seq.fix, root), 500)
        if not error:
            continue
        learning = Candidate(
            ref=f"fix:{seq.fix_call_id}",
            type="Learning",
            content=f"{seq.tool} `{target}` succeeded after this change: {fix}.",
            files=tuple(files),
            confidence=0.6,
        )
        found.append(
            Candidate(
                ref=f"error:{seq.error_call_id}",
                type="Mistake",
                content=f"{seq.tool} `{target}` failed"
                + (f" {seq.attempts} times" if seq.attempts > 1 else "")
                + f": {error}",
                files=tuple(files),
                confidence=0.65,
                fixed_by=learning,
            )
        )
    return found


def _question_of(text: str) -> str | None:
    """The last sentence of an assistant reply when it is a question, else None."""
    sentences = [s.strip() for s in _SENTENCE_SPLIT.split(text.strip()) if s.strip()]
    if not sentences or not sentences[-1].endswith("?"):
        return None
    return sentences[-1].lstrip("-*# ").strip()


def qa_candidates(entries: Sequence[Any]) -> list[Candidate]:
    """The user's answers to the agent's questions."""
    from kgraph.transcript.views import qa_pairs

    found: list[Candidate] = []
    pairs = qa_pairs(entries)
    chat = [p for p in pairs if p.source == "chat"]
    for pair in pairs:
        if pair.source != "ask_user_question":
            continue
        answer = _short(pair.answer, MAX_ANSWER_CHARS)
        if _AFFIRMATION.match(answer) and _PROCEED_QUESTION.search(pair.question):
            continue
        found.append(
            Candidate(
                ref=f"ask:{pair.ref}:{text_hash(pair.question)}",
                type="Learning",
                content=f'The agent asked "{_short(pair.question, 300)}"'
                f" and the user chose: {answer}",
                confidence=0.8,
            )
        )
    for previous, current in pairwise(chat):
        question = _question_of(previous.answer)
        if question is None or len(question.split()) < 5 or _PROCEED_QUESTION.search(question):
            continue
        answer = current.question.strip()
        if len(answer.split()) < 3 or _AFFIRMATION.match(answer) or _NEW_REQUEST.match(answer):
            continue
        found.append(
            Candidate(
                ref=f"answer:{current.ref or text_hash(answer)}",
                type="Learning",
                content=f'The agent asked "{_short(question, 300)}"'
                f" and the user answered: {_short(answer, MAX_ANSWER_CHARS)}",
                confidence=0.7,
            )
        )
    return found


def statement_candidates(prompts: Sequence[str]) -> list[Candidate]:
    """Explicit lessons and rules the user stated in prompts."""
    found: list[Candidate] = []
    for prompt in prompts:
        sentences = [s.strip() for s in _SENTENCE_SPLIT.split(prompt) if s.strip()]
        for i, sentence in enumerate(sentences):
            if _LEARNING_TRIGGER.search(sentence):
                kind = "Learning"
            elif _RULE_TRIGGER.search(sentence):
                kind = "Pattern"
            else:
                continue
            text = _TRIGGER_PREFIX.sub("", sentence).strip()
            if len(text.split()) < 3 and i + 1 < len(sentences):  # "Remember this:" + next
                text = sentences[i + 1]
            text = _short(text, MAX_STATEMENT_CHARS)
            if len(text.split()) < 3:
                continue
            found.append(
                Candidate(
                    ref=f"said:{text_hash(text)}",
                    type=kind,
                    content=f"The user stated: {text}",
                    confidence=0.8,
                )
            )
    return found


def transcript_facts(
    entries: Sequence[Any], root: Path, session_id: str, new_from: int = 0
) -> TranscriptFacts:
    """Candidates and session facts from one batch of entries; ``new_from`` is the byte offset
    where the part not seen before starts (the batch may re-read an overlap)."""
    from kgraph.transcript.views import (
        compaction_boundaries,
        compaction_summaries,
        dedupe,
        files_touched,
        user_prompts,
    )

    entries = dedupe(entries)
    facts = TranscriptFacts()
    branches = [e.git_branch for e in entries if e.git_branch and e.git_branch != "HEAD"]
    facts.branch = branches[-1] if branches else None
    stamps = [e.timestamp for e in entries if e.timestamp]
    if stamps:
        facts.first_ts, facts.last_ts = min(stamps), max(stamps)
    touched = files_touched(entries)
    facts.files_read = {r for p in touched.read if (r := relative_to_root(p, root))}
    facts.files_edited = {r for p in touched.edited if (r := relative_to_root(p, root))}
    facts.compaction_summaries = compaction_summaries(entries)
    facts.compaction_ids = {
        b.uuid or b.timestamp or "" for b in compaction_boundaries(entries) if b.kind == "compact"
    } - {""}
    facts.prompts = user_prompts(entries)
    fresh = [e for e in entries if e.offset >= new_from]
    facts.new_prompts = user_prompts(fresh)
    facts.new_assistant_texts = [
        e.text for e in fresh if e.type == "assistant" and not e.is_sidechain and e.text.strip()
    ]
    facts.candidates = [
        *error_fix_candidates(entries, root, session_id),
        *qa_candidates(entries),
        *statement_candidates(facts.prompts),
    ]
    return facts
