"""Capturing one session: its commits and transcript into knowledge, its facts into ``sessions``.

:func:`capture_session` runs under the session's lock and is incremental and idempotent:

- the transcript is read from the stored byte watermark (re-reading a short overlap, so an
  error whose fix lands in the next batch is still paired); every candidate has a ref, and
  refs already stored for the session — or ``(source, source_ref)`` already in the knowledge
  store — are skipped, so capturing the same session again adds nothing;
- commits come from ``git log <HEAD at start>..<HEAD at end>``; for a session kgraph never
  saw start, from the transcript's time span;
- everything passes the junk gate; the knowledge store redacts what it stores, and the free
  text kept on the session (commit subjects, compaction summary) is redacted here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kgraph.capture import commits as commit_parsing
from kgraph.capture.candidates import Candidate
from kgraph.capture.from_transcript import TranscriptFacts, transcript_facts
from kgraph.capture.junk import JunkGate
from kgraph.capture.lock import session_lock
from kgraph.capture.sessions import SessionRecord, find_session, update_session
from kgraph.db import Database
from kgraph.db.models import utcnow

CARRY_ENTRIES = 150  # entries re-read from the previous batch
MAX_REFS = 20_000
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


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


@dataclass
class _Writer:
    db: Database
    session_id: str
    issue_number: int | None
    refs: set[str]
    gate: JunkGate = field(default_factory=JunkGate)
    created: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    skipped: int = 0

    def store(self, candidate: Candidate, source_ref: str | None = None) -> str | None:
        """Store one candidate (junk gate, idempotence); its entity id, or None if rejected.

        A candidate captured before returns the id it was stored under (when that can be
        found) without writing anything.
        """
        from kgraph.knowledge.query import find_by_source_ref
        from kgraph.knowledge.store import add_item

        source_ref = source_ref or f"{self.session_id}:{candidate.ref}"
        if candidate.ref in self.refs:
            self.skipped += 1
            return find_by_source_ref(self.db, candidate.source, source_ref)
        if not self.gate.admit(candidate.content):
            return None
        existing = find_by_source_ref(self.db, candidate.source, source_ref)
        if existing is not None:
            self.refs.add(candidate.ref)
            self.skipped += 1
            return existing
        result = add_item(
            self.db,
            candidate.content,
            type=candidate.type,
            code_area=candidate.code_area,
            files=candidate.files,
            confidence=candidate.confidence,
            source=candidate.source,
            source_ref=source_ref,
            issue_number=self.issue_number,
            session_id=self.session_id,
            data={"capture_ref": candidate.ref},
        )
        self.refs.add(candidate.ref)
        (self.created if result.created else self.reinforced).append(result.entity_id)
        return result.entity_id

    def store_with_fix(self, candidate: Candidate) -> None:
        """A Mistake and the Learning that fixed it, linked Mistake -LED_TO-> Learning."""
        from kgraph.knowledge.store import link

        fix = candidate.fixed_by
        if candidate.ref in self.refs and (fix is None or fix.ref in self.refs):
            self.skipped += 1 if fix is None else 2
            return
        mistake_id = self.store(candidate)
        fix_id = self.store(fix) if fix is not None else None
        if mistake_id and fix_id:
            link(self.db, mistake_id, fix_id, "LED_TO")


def _commit_candidates(
    root: Path, commits: list[commit_parsing.CommitInfo], rules: Any
) -> tuple[list[tuple[Candidate, str]], list[dict[str, Any]]]:
    from kgraph.knowledge.areas import infer_code_area
    from kgraph.redact import redact

    knowledge: list[tuple[Candidate, str]] = []
    facts: list[dict[str, Any]] = []
    for commit in commits:
        reason = commit_parsing.knowledge_reason(commit)
        if reason is None:
            fact = commit.to_fact()
            fact["subject"] = redact(fact["subject"])
            facts.append(fact)
            continue
        area = infer_code_area(f"{commit.scope}/_", rules) if commit.scope else None
        candidate = Candidate(
            ref=f"commit:{commit.sha}",
            type="Learning",
            content=commit_parsing.commit_content(commit),
            files=commit.files,
            code_area=area,
            confidence=0.8 if reason == "breaking" else 0.75,
            source="commit",
        )
        knowledge.append((candidate, commit.sha))
    return knowledge, facts


def _read_transcript(
    path: str | None, record: SessionRecord | None, root: Path, session_id: str, final: bool
) -> tuple[TranscriptFacts | None, int, int]:
    """(facts or None, new watermark, carry offset to read from next time)."""
    from kgraph.errors import KgraphError
    from kgraph.transcript.reader import read_new_entries

    offset = record.transcript_offset if record else 0
    carry = record.data.get("carry_offset", offset) if record else 0
    carry = carry if isinstance(carry, int) and 0 <= carry <= offset else offset
    if not path:
        return None, offset, carry
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return None, offset, carry
    if size == offset:
        return None, offset, carry
    try:
        entries, end = read_new_entries(path, carry if size > offset else 0, final=final)
    except KgraphError:
        return None, offset, carry
    if not entries:
        return None, end, min(carry, end)
    facts = transcript_facts(entries, root, session_id, new_from=offset if size > offset else 0)
    new_carry = entries[max(0, len(entries) - CARRY_ENTRIES)].offset
    return facts, end, min(new_carry, end)


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
    from kgraph.errors import KgraphError
    from kgraph.knowledge.areas import DEFAULT_AREA_RULES, load_area_rules
    from kgraph.redact import redact

    with session_lock(root, session_id, timeout=lock_timeout):
        record = find_session(db, session_id)
        data: dict[str, Any] = dict(record.data) if record else {}
        path = transcript_path or (record.transcript_path if record else None)
        facts, offset, carry = _read_transcript(path, record, root, session_id, final)

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
        writer = _Writer(
            db, session_id, _session_issue(record, branch), set(data.get("refs") or [])
        )
        commit_knowledge, commit_facts = _commit_candidates(root, commits, rules)
        for candidate, sha in commit_knowledge:
            writer.store(candidate, source_ref=sha)
        candidates = list(facts.candidates) if facts else []
        if extractor == "claude" and facts is not None:
            from kgraph.capture.extractor import extract_candidates

            candidates += extract_candidates(
                facts.new_prompts[-50:], facts.new_assistant_texts[-50:], extractor_timeout
            )
        for candidate in candidates:
            writer.store_with_fix(candidate)

        known_facts = {
            f.get("sha"): f for f in data.get("commit_facts") or [] if isinstance(f, dict)
        }
        for fact in commit_facts:
            known_facts.setdefault(fact["sha"], fact)

        def change(row: dict[str, Any]) -> None:
            new = row["data"]
            new["refs"] = sorted(writer.refs)[-MAX_REFS:]
            new["carry_offset"] = carry
            new["commit_facts"] = list(known_facts.values())[-MAX_FACTS:]
            new["captured_ids"] = list(
                dict.fromkeys([*(new.get("captured_ids") or []), *writer.created])
            )
            new["reinforced_ids"] = list(
                dict.fromkeys([*(new.get("reinforced_ids") or []), *writer.reinforced])
            )
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
                new["files_edited"] = sorted(
                    {*(new.get("files_edited") or []), *facts.files_edited}
                )[:MAX_FACTS]
                new["compactions"] = sorted(
                    {*(new.get("compactions") or []), *facts.compaction_ids}
                )
                if facts.compaction_summaries:
                    row["compaction_summary"] = redact(facts.compaction_summaries[-1])[
                        :MAX_SUMMARY_CHARS
                    ]
            row["transcript_offset"] = offset
            if path and not row["transcript_path"]:
                row["transcript_path"] = path
            if branch and not row["branch"]:
                row["branch"] = branch
            if row["issue_number"] is None:
                row["issue_number"] = writer.issue_number
            row["captured_at"] = utcnow()
            if final and row["ended_at"] is None:
                row["ended_at"] = utcnow()

        update_session(db, session_id, change)
        from kgraph.capture.metrics import update_session_metrics

        update_session_metrics(db, session_id)
        return CaptureResult(
            session_id=session_id,
            created=tuple(writer.created),
            reinforced=tuple(writer.reinforced),
            skipped=writer.skipped,
            rejected=dict(writer.gate.rejected),
            commit_facts=len(commit_facts),
            transcript_offset=offset,
        )
