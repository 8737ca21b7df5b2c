"""Session facts from transcript entries: files read and edited, compaction summaries, the
time span and branch, the prompts and replies a model extractor reads.

These are facts about the session, not knowledge; knowledge comes from
:mod:`kgraph.capture.extract`. Paths are repo-relative through the transcript's own cwd
(:class:`kgraph.capture.gate.paths.PathMap`). kgraph's own injected ``<kgraph-context>`` is
stripped by the transcript views, so it is never learned back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgraph.capture.gate.paths import PathMap


@dataclass
class TranscriptFacts:
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


def transcript_facts(entries: Sequence[Any], root: Path, new_from: int = 0) -> TranscriptFacts:
    """Session facts from one batch of entries; ``new_from`` is the byte offset where the part
    not seen before starts (the batch may re-read an overlap)."""
    from kgraph.capture.extract import transcript_cwds
    from kgraph.transcript.views import (
        compaction_boundaries,
        compaction_summaries,
        dedupe,
        files_touched,
        user_prompts,
    )

    entries = dedupe(entries)
    paths = PathMap(root, transcript_cwds(entries))
    facts = TranscriptFacts()
    branches = [e.git_branch for e in entries if e.git_branch and e.git_branch != "HEAD"]
    facts.branch = branches[-1] if branches else None
    stamps = [e.timestamp for e in entries if e.timestamp]
    if stamps:
        facts.first_ts, facts.last_ts = min(stamps), max(stamps)
    touched = files_touched(entries)
    facts.files_read = {r for p in touched.read if (r := paths.rel(p))}
    facts.files_edited = {r for p in touched.edited if (r := paths.rel(p))}
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
    return facts
