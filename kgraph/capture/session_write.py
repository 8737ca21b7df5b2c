"""The write stage of a session's capture: candidates prepared outside the transaction
(validated, redacted, the code they name recorded), then one transaction that stores the new
items, the session's Topic with PART_OF edges and the session row with its watermark.

Split from :mod:`kgraph.capture.session_capture` (read → extract → write), which calls
:func:`prepare` and :func:`write`. An item that says nearly the same as a stored one about
the same file (most of its words), or as one an earlier batch of the same session stored,
reinforces that one instead of repeating it; what the conversation has since taken back is
hidden (:func:`_take_back`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kgraph.capture.code_at import CodeAt
from kgraph.capture.gate.candidates import Candidate
from kgraph.capture.gate.junk import JunkGate
from kgraph.capture.sources.retractions import Retraction
from kgraph.db import Database
from kgraph.db.models import utcnow

if TYPE_CHECKING:
    from kgraph.knowledge.prepare import PreparedItem

__all__ = ["Plan", "Written", "prepare", "prepared_item", "write"]

MAX_REFS = 20_000
NEAR_DUPLICATE = 0.75  # share of words two items about the same file must have in common


@dataclass
class Plan:
    """Candidates prepared for the write (validated and redacted, no database access)."""

    items: list[tuple[Candidate, str, Any]] = field(default_factory=list)  # cand, ref, prepared
    topic: tuple[Candidate, str, Any] | None = None
    gate: JunkGate = field(default_factory=JunkGate)
    skipped: int = 0
    retractions: tuple[Retraction, ...] = ()


def prepare(
    candidates: list[Candidate],
    session_id: str,
    issue: int | None,
    refs: set[str],
    rules: Any,
    code: CodeAt,
    until: datetime | None = None,
) -> Plan:
    """The candidates as items ready for the write: through the junk gate (commits
    trusted), refs the session stored already skipped, prepared (validated, redacted), the
    code each names recorded (``code``), and the untrusted ones stored as candidates. An
    item of a commit is dated by the commit, or (a commit only the transcript knows) by
    ``until``, the transcript's latest entry read (kgraph.recall.recent)."""
    plan = Plan()
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
        prepared = prepared_item(
            candidate,
            code,
            rules,
            source_ref=source_ref,
            origin=candidate.origin,
            issue_number=issue,
            session_id=session_id,
            created_at=candidate.at or (until if candidate.source == "commit" else None),
        )
        if candidate.type == "Topic":
            plan.topic = (candidate, source_ref, prepared)
        else:
            plan.items.append((candidate, source_ref, prepared))
    return plan


def prepared_item(
    candidate: Candidate,
    code: CodeAt,
    rules: Any,
    *,
    source_ref: str,
    origin: str,
    **fields: Any,
) -> PreparedItem:
    """``candidate`` as an item ready to write (validated and redacted by
    :func:`~kgraph.knowledge.prepare.prepare_item`) with the code it names recorded
    (``code``); ``fields`` are prepare_item's other keywords (a session's, a commit's date).
    A session's capture and the history's learning build their items here alike; one of an
    origin not trusted (kgraph.capture.gate.candidates) is stored as a hidden candidate."""
    from kgraph.knowledge.prepare import prepare_item

    item = prepare_item(
        candidate.content,
        type=candidate.type,
        code_area=candidate.code_area,
        files=candidate.files,
        confidence=candidate.confidence,
        source=candidate.source,
        source_ref=source_ref,
        data={"capture_ref": candidate.ref, "origin": origin},
        area_rules=rules,
        **fields,
    )
    if not candidate.trusted:
        item = replace(item, candidate=True)
    return code.record(item, candidate.ref)


def _near_duplicate(conn: Any, prepared: Any) -> str | None:
    """A stored item of the same type that says nearly the same: one about one of the same
    files sharing most of its words, or one of the same session (a batch before this one)
    sharing most of its content words — a long session is captured in several batches, and
    each batch alone cannot see that an earlier one kept the same cause."""
    from sqlalchemy import select

    from kgraph.capture.extract import content_words, repeats
    from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS
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


@dataclass
class Written:
    created: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    skipped: int = 0


def write(
    db: Database,
    session_id: str,
    plan: Plan,
    refs: set[str],
    change: Callable[[dict[str, Any]], None],
) -> Written:
    """Items, Topic, PART_OF edges and the session row in one transaction (see module doc)."""
    from kgraph.capture.sessions import change_session
    from kgraph.knowledge.records import source_ref_id
    from kgraph.knowledge.store import ensure_edge, write_item

    def op(conn: Any) -> Written:
        written = Written()
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
    from kgraph.knowledge.records import ENTITIES
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
