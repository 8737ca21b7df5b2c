"""Capturing one session: read what is new → extract candidate items (pure) → write them.

:func:`capture_session` runs under the session's lock and is incremental and idempotent:

- **read**: the transcript from the stored byte watermark (re-reading the turn still in
  progress, so an explanation is read with the turn it belongs to), and the session's
  commits from ``git log <HEAD at start>..<HEAD at end>`` (for a session kgraph never saw
  start, from the transcript's time span);
- **extract**: :func:`kgraph.capture.extract.extract_candidates` — no database, no git;
- **write**: one transaction stores the new items, the session's Topic with PART_OF edges,
  and the session row with its watermark, so a crash leaves either all of it or none and a
  re-run never counts an item twice. Every candidate has a content-based ref; refs already
  stored for the session, or ``(source, source_ref)`` already in the store, are skipped.
  An item that says nearly the same as a stored one about the same file (most of its words)
  reinforces that one instead of repeating it.

Free text kept on the session (commit subjects, compaction summary) is redacted thoroughly
here; the knowledge store redacts items itself.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kgraph.capture.code_at import CodeAt
from kgraph.capture.from_transcript import TranscriptFacts, transcript_facts
from kgraph.capture.gate.candidates import Candidate
from kgraph.capture.gate.junk import JunkGate
from kgraph.capture.sessions import SessionRecord, find_session
from kgraph.capture.sources import commits as commit_parsing
from kgraph.capture.sources.explanations import Found
from kgraph.capture.sources.retractions import Retraction
from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.runtime.git import Blobs
from kgraph.runtime.lock import session_lock

CARRY_ENTRIES = 150  # entries re-read from the previous batch at least
MAX_REFS = 20_000
MAX_SUMMARY_CHARS = 20_000
MAX_FACTS = 500
UNTIL_SLACK = timedelta(minutes=10)
NEAR_DUPLICATE = 0.75  # share of words two items about the same file must have in common


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


@dataclass
class _Plan:
    """Candidates prepared for the write (validated and redacted, no database access)."""

    items: list[tuple[Candidate, str, Any]] = field(default_factory=list)  # cand, ref, prepared
    topic: tuple[Candidate, str, Any] | None = None
    gate: JunkGate = field(default_factory=JunkGate)
    skipped: int = 0
    retractions: tuple[Retraction, ...] = ()


def _prepare(
    candidates: list[Candidate],
    session_id: str,
    issue: int | None,
    refs: set[str],
    rules: Any,
    code: CodeAt,
) -> _Plan:
    from kgraph.knowledge.prepare import prepare_item

    plan = _Plan()
    for candidate in candidates:
        if candidate.ref in refs:
            plan.skipped += 1
            continue
        if candidate.type != "Topic" and not plan.gate.admit(
            candidate.content, trusted=candidate.source == "commit", stated=candidate.stated
        ):
            continue
        source_ref = (
            candidate.ref.removeprefix("commit:")
            if candidate.source == "commit"
            else f"{session_id}:{candidate.ref}"
        )
        prepared = prepare_item(
            candidate.content,
            type=candidate.type,
            code_area=candidate.code_area,
            files=candidate.files,
            confidence=candidate.confidence,
            source=candidate.source,
            source_ref=source_ref,
            issue_number=issue,
            session_id=session_id,
            data={"capture_ref": candidate.ref, "origin": candidate.origin},
            area_rules=rules,
        )
        prepared = code.record(prepared, candidate.ref)
        if not candidate.trusted:
            prepared = replace(prepared, candidate=True)
        if candidate.type == "Topic":
            plan.topic = (candidate, source_ref, prepared)
        else:
            plan.items.append((candidate, source_ref, prepared))
    return plan


def _near_duplicate(conn: Any, prepared: Any) -> str | None:
    """A stored item of the same type that says nearly the same: one about one of the same
    files sharing most of its words, or one of the same session (a batch before this one)
    sharing most of its content words — a long session is captured in several batches, and
    each batch alone cannot see that an earlier one kept the same cause."""
    from sqlalchemy import select

    from kgraph.capture.extract import content_words, repeats
    from kgraph.knowledge.query import ENTITIES, RELATIONSHIPS
    from kgraph.knowledge.store import ensure_entity

    if prepared.session_id:
        rows = conn.execute(
            select(ENTITIES.c.id, ENTITIES.c.content)
            .where(ENTITIES.c.session_id == prepared.session_id, ENTITIES.c.type == prepared.type)
            .limit(500)
        ).all()
        words = content_words(prepared.text)
        for entity_id, content in rows:
            if repeats(words, [content_words(str(content))]):
                return str(entity_id)
    if not prepared.files:
        return None
    plain = set(prepared.text.lower().split())
    file_ids = [ensure_entity(conn, "File", path) for path in prepared.files]
    rows = conn.execute(
        select(ENTITIES.c.id, ENTITIES.c.content)
        .join(RELATIONSHIPS, RELATIONSHIPS.c.from_id == ENTITIES.c.id)
        .where(
            RELATIONSHIPS.c.type == "IN_FILE",
            RELATIONSHIPS.c.to_id.in_(file_ids),
            ENTITIES.c.type == prepared.type,
        )
        .limit(500)
    ).all()
    for entity_id, content in rows:
        other = set(str(content).lower().split())
        if len(plain & other) / max(1, min(len(plain), len(other))) >= NEAR_DUPLICATE:
            return str(entity_id)
    return None


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
            plan = _prepare(candidates, session_id, issue, refs, rules, CodeAt(root, blobs))
        plan.retractions = extraction.retractions
        commit_facts = [c.to_fact() for c in commits if commit_parsing.knowledge_reason(c) is None]
        written = _write(
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


@dataclass
class _Written:
    created: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    skipped: int = 0


def _write(db: Database, session_id: str, plan: _Plan, refs: set[str], change: Any) -> _Written:
    """Items, Topic, PART_OF edges and the session row in one transaction (see module doc)."""
    from kgraph.capture.sessions import change_session
    from kgraph.knowledge.query import source_ref_id
    from kgraph.knowledge.store import ensure_edge, write_item

    def op(conn: Any) -> _Written:
        written = _Written()
        stored: list[str] = []
        new_refs: list[str] = []
        _take_back(conn, session_id, plan.retractions)
        for candidate, source_ref, prepared in plan.items:
            if source_ref_id(conn, prepared.source, source_ref) is not None:
                written.skipped += 1
                new_refs.append(candidate.ref)
                continue
            near = _near_duplicate(conn, prepared)
            result = write_item(conn, replace(prepared, near_duplicate=near))
            (written.created if result.created else written.reinforced).append(result.entity_id)
            stored.append(result.entity_id)
            new_refs.append(candidate.ref)
        record = _load_data(conn, session_id)
        topic_id = record.get("topic_id")
        if plan.topic is not None and topic_id is None and len(written.created) >= 2:
            candidate, source_ref, prepared = plan.topic
            topic_id = write_item(conn, prepared).entity_id
            written.created.append(topic_id)
            new_refs.append(candidate.ref)
        if topic_id:
            for entity_id in stored:
                if entity_id != topic_id:
                    ensure_edge(conn, entity_id, topic_id, "PART_OF")

        def update(row: dict[str, Any]) -> None:
            change(row)
            row["data"]["refs"] = sorted({*refs, *new_refs})[-MAX_REFS:]
            if topic_id:
                row["data"]["topic_id"] = topic_id
            row["data"]["captured_ids"] = list(
                dict.fromkeys([*(row["data"].get("captured_ids") or []), *written.created])
            )
            row["data"]["reinforced_ids"] = list(
                dict.fromkeys([*(row["data"].get("reinforced_ids") or []), *written.reinforced])
            )

        change_session(conn, session_id, update)
        return written

    return db.write(op)


def _take_back(conn: Any, session_id: str, retractions: Sequence[Retraction]) -> None:
    """Hide what an earlier capture of the session stored and the conversation has since
    taken back (kgraph.capture.sources.retractions); commits are not diagnoses and stay."""
    from sqlalchemy import select

    from kgraph.capture.sources.retractions import code_names
    from kgraph.knowledge.candidates import CANDIDATE, PENDING, REJECTED
    from kgraph.knowledge.model import KNOWLEDGE_TYPES
    from kgraph.knowledge.query import ENTITIES
    from kgraph.knowledge.store import update_entity
    from kgraph.redact import redact

    if not retractions:
        return
    rows = conn.execute(
        select(ENTITIES.c.id, ENTITIES.c.content, ENTITIES.c.data, ENTITIES.c.hidden_at).where(
            ENTITIES.c.session_id == session_id,
            ENTITIES.c.type.in_(KNOWLEDGE_TYPES),
            ENTITIES.c.source != "commit",
        )
    ).all()
    for entity_id, content, data, hidden_at in rows:
        data = dict(data or {})
        names = code_names(str(content))
        taken = next((r for r in retractions if names & r.names), None)
        if taken is None or "retracted" in data:
            continue
        data["retracted"] = redact(taken.text, thorough=True)[:300]
        if data.get(CANDIDATE) == PENDING:
            data[CANDIDATE] = REJECTED  # nothing may corroborate it any more
        update_entity(conn, entity_id, hidden_at=hidden_at or utcnow(), data=data)


def _load_data(conn: Any, session_id: str) -> dict[str, Any]:
    from sqlalchemy import select

    from kgraph.capture.sessions import SESSIONS

    value = conn.scalar(select(SESSIONS.c.data).where(SESSIONS.c.session_id == session_id))
    return dict(value) if isinstance(value, dict) else {}


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
