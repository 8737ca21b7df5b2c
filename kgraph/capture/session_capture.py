"""Capturing one session: read what is new → extract candidate items (pure) → write them.

:func:`capture_session` runs under the session's lock and is incremental and idempotent:

- **read**: the transcript from the stored byte watermark (re-reading the turn still in
  progress, so an explanation is read with the turn it belongs to), and the session's
  commits from ``git log <HEAD at start>..<HEAD at end>`` (for a session kgraph never saw
  start, from the transcript's time span);
- **extract**: :func:`kgraph.capture.extract.extract_candidates` — no database, no git;
- **write** (:mod:`kgraph.capture.session_write`): one transaction stores the new items,
  the session's Topic with PART_OF edges, and the session row with its watermark, so a
  crash leaves either all of it or none and a re-run never counts an item twice. Every
  candidate has a content-based ref; refs already stored for the session, or
  ``(source, source_ref)`` already in the store, are skipped.
  An item that says nearly the same as a stored one about the same file (most of its words)
  reinforces that one instead of repeating it.

Free text kept on the session (commit subjects, compaction summary) is redacted thoroughly
here; the knowledge store redacts items itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kgraph.capture.code_at import CodeAt
from kgraph.capture.from_transcript import TranscriptFacts, transcript_facts
from kgraph.capture.session_write import prepare, write
from kgraph.capture.sessions import SessionRecord, find_session
from kgraph.capture.sources import commits as commit_parsing
from kgraph.capture.sources.commit_items import knowledge_reason
from kgraph.capture.sources.explanations import Found
from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.runtime.git import Blobs
from kgraph.runtime.lock import session_lock

CARRY_ENTRIES = 150  # entries re-read from the previous batch at least
MAX_SUMMARY_CHARS = 20_000
MAX_FACTS = 500
UNTIL_SLACK = timedelta(minutes=10)


@dataclass(frozen=True)
class CaptureResult:
    session_id: str
    created: tuple[str, ...] = ()
    reinforced: tuple[str, ...] = ()
    skipped: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    commit_facts: int = 0
    transcript_offset: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "created": list(self.created),
            "reinforced": list(self.reinforced),
            "skipped": self.skipped,
            "rejected": dict(self.rejected),
            "commit_facts": self.commit_facts,
            "transcript_offset": self.transcript_offset,
        }


@dataclass
class _Batch:
    """What one capture read: transcript entries to extract from, and the new watermark."""

    entries: list[Any] = field(default_factory=list)
    facts: TranscriptFacts | None = None
    offset: int = 0
    carry: int = 0


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def _turn_start(entries: list[Any]) -> int | None:
    """Index of the entry where the last turn began (the last prompt the user typed)."""
    from kgraph.transcript.conversation import is_prompt_entry, prompt_text

    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        if is_prompt_entry(entry, False) and not entry.is_meta and prompt_text(entry):
            return index
    return None


def _read_transcript(
    path: str | None, record: SessionRecord | None, root: Path, final: bool
) -> _Batch:
    """The entries to extract from and the watermarks. Until the session ends, the turn in
    progress is left for the next capture (carried), so its explanation is read whole."""
    from kgraph.errors import KgraphError
    from kgraph.transcript.reader import read_new_entries

    offset = record.transcript_offset if record else 0
    carry = record.data.get("carry_offset", offset) if record else 0
    carry = carry if isinstance(carry, int) and 0 <= carry <= offset else offset
    batch = _Batch(offset=offset, carry=carry)
    if not path:
        return batch
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return batch
    if size == offset:
        return batch
    start = carry if size > offset else 0
    try:
        entries, end = read_new_entries(path, start, final=final)
    except KgraphError:
        return batch
    batch.offset = end
    if not entries:
        batch.carry = min(carry, end)
        return batch
    batch.facts = transcript_facts(entries, root, new_from=offset if size > offset else 0)
    start_of_turn = None if final else _turn_start(entries)
    cut = len(entries) if start_of_turn is None else start_of_turn + 1  # its prompt is whole
    batch.entries = entries[:cut]
    cut = len(entries) if start_of_turn is None else start_of_turn
    keep = min(cut, max(0, len(entries) - CARRY_ENTRIES))
    batch.carry = min(entries[keep].offset if keep < len(entries) else end, end)
    return batch


def _session_issue(record: SessionRecord | None, branch: str | None) -> int | None:
    if record is not None and record.issue_number is not None:
        return record.issue_number
    return commit_parsing.issue_from_branch(branch)


def capture_session(
    db: Database,
    root: Path,
    session_id: str,
    *,
    transcript_path: str | None = None,
    final: bool = False,
    bounded: bool = False,
    extractor: str | None = None,
    extractor_timeout: float = 120.0,
    lock_timeout: float = 120.0,
) -> CaptureResult:
    """Capture what is new in session ``session_id`` (see module docstring).

    ``final``: the session ended (record HEAD at end; take a last line without newline).
    ``bounded``: catch-up of an old session — commits only up to its last transcript time.
    ``extractor="claude"`` also asks the model for knowledge in the new part of the transcript.
    """
    from kgraph.capture.extract import extract_candidates
    from kgraph.errors import KgraphError
    from kgraph.knowledge.areas import DEFAULT_AREA_RULES, load_area_rules

    with session_lock(root, session_id, timeout=lock_timeout):
        record = find_session(db, session_id)
        data: dict[str, Any] = dict(record.data) if record else {}
        path = transcript_path or (record.transcript_path if record else None)
        batch = _read_transcript(path, record, root, final)
        facts = batch.facts
        first_ts = min(
            filter(None, [data.get("first_ts"), facts.first_ts if facts else None]), default=None
        )
        last_ts = max(
            filter(None, [data.get("last_ts"), facts.last_ts if facts else None]), default=None
        )
        try:
            rules = load_area_rules(root)
        except KgraphError:
            rules = DEFAULT_AREA_RULES
        head_at_end = data.get("head_at_end") or (
            commit_parsing.current_head(root) if final and not bounded else None
        )
        until = _parse_time(last_ts)
        commits = commit_parsing.session_commits(
            root,
            record.head_at_start if record else None,
            end=head_at_end,
            since=_parse_time(first_ts),
            until=until + UNTIL_SLACK
            if until and (bounded or not (record and record.head_at_start))
            else None,
        )
        branch = (record.branch if record else None) or (facts.branch if facts else None)
        issue = _session_issue(record, branch)

        model: list[Found] = []
        if extractor == "claude" and facts is not None:
            from kgraph.capture.sources.extractor import extract_candidates as model_items

            model = model_items(
                facts.new_prompts[-50:], facts.new_assistant_texts[-50:], extractor_timeout
            )
        extraction = extract_candidates(
            batch.entries, root, commits=commits, area_rules=rules, model=model
        )
        candidates = list(extraction.candidates)
        refs = set(data.get("refs") or [])
        with Blobs(root) as blobs:
            plan = prepare(
                candidates, session_id, issue, refs, rules, CodeAt(root, blobs), until=until
            )
        plan.retractions = extraction.retractions
        commit_facts = [c.to_fact() for c in commits if knowledge_reason(c) is None]
        written = write(
            db,
            session_id,
            plan,
            refs,
            _session_change(
                batch, commit_facts, branch, issue, path, final, first_ts, last_ts, head_at_end
            ),
        )
        from kgraph.capture.metrics import update_session_metrics

        update_session_metrics(db, session_id)
        rejected = dict(plan.gate.rejected)
        for reason, count in extraction.rejected.items():
            rejected[reason] = rejected.get(reason, 0) + count
        return CaptureResult(
            session_id=session_id,
            created=tuple(written.created),
            reinforced=tuple(written.reinforced),
            skipped=plan.skipped + written.skipped,
            rejected=rejected,
            commit_facts=len(commit_facts),
            transcript_offset=batch.offset,
        )


def _session_change(
    batch: _Batch,
    commit_facts: list[dict[str, Any]],
    branch: str | None,
    issue: int | None,
    path: str | None,
    final: bool,
    first_ts: str | None,
    last_ts: str | None,
    head_at_end: str | None,
) -> Any:
    """The change to the session row: watermark, facts, times (applied inside the write)."""
    from kgraph.redact import redact

    facts = batch.facts

    def change(row: dict[str, Any]) -> None:
        new = row["data"]
        new["carry_offset"] = batch.carry
        known = {f.get("sha"): f for f in new.get("commit_facts") or [] if isinstance(f, dict)}
        for fact in commit_facts:
            known.setdefault(
                fact["sha"], {**fact, "subject": redact(fact["subject"], thorough=True)}
            )
        new["commit_facts"] = list(known.values())[-MAX_FACTS:]
        if first_ts:
            new["first_ts"] = first_ts
        if last_ts:
            new["last_ts"] = last_ts
        if head_at_end:
            new["head_at_end"] = head_at_end
        if facts is not None:
            new["files_read"] = sorted({*(new.get("files_read") or []), *facts.files_read})[
                :MAX_FACTS
            ]
            new["files_edited"] = sorted({*(new.get("files_edited") or []), *facts.files_edited})[
                :MAX_FACTS
            ]
            new["compactions"] = sorted({*(new.get("compactions") or []), *facts.compaction_ids})
            if facts.compaction_summaries:
                summary = redact(facts.compaction_summaries[-1], thorough=True)
                row["compaction_summary"] = summary[:MAX_SUMMARY_CHARS]
        row["transcript_offset"] = batch.offset
        if path and not row["transcript_path"]:
            row["transcript_path"] = path
        if branch and not row["branch"]:
            row["branch"] = branch
        if row["issue_number"] is None:
            row["issue_number"] = issue
        row["captured_at"] = utcnow()
        if final and row["ended_at"] is None:
            row["ended_at"] = utcnow()

    return change
