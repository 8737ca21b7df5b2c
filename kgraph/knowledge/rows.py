"""The rows a knowledge write stores, built without touching the database.

Two write paths share these builders: :func:`kgraph.knowledge.store.write_item` (one item,
statement by statement: ``kgraph learn``, capture) and :func:`kgraph.knowledge.batch.
write_items` (many items per transaction, executemany: ``kgraph knowledge import``). Keeping
what a row holds, what a duplicate changes and which links an item gets in one place is what
makes both paths store identical databases (tests/knowledge/test_batch.py compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kgraph.knowledge.areas import AreaRules, infer_code_area
from kgraph.knowledge.candidates import CANDIDATE, PENDING, corroboration
from kgraph.knowledge.model import content_hash, entity_id

if TYPE_CHECKING:
    from kgraph.knowledge.prepare import PreparedItem

CONFIDENCE_BUMP = 0.05
MAX_VARIANTS = 5
# Every column an inserted entity row names, so rows of items and of File/CodeArea entities
# can go through one executemany (it needs the same keys in every row).
ENTITY_COLUMNS = (
    "id",
    "type",
    "content",
    "content_hash",
    "data",
    "confidence",
    "source",
    "source_ref",
    "issue_number",
    "session_id",
    "seen_count",
    "hidden_at",
    "embedding",
    "embedding_model",
    "embedding_dim",
    "embedding_hash",
    "created_at",
    "updated_at",
)


def bumped_confidence(old: float, new: float) -> float:
    return min(1.0, max(old, new) + CONFIDENCE_BUMP)


def unique_id(type_: str, text: str, taken: Callable[[str], bool]) -> str:
    """The deterministic id, lengthened in the (rare) case another text already holds it;
    ``taken(id)`` says whether an id is in use."""
    for length in (10, 16, 24, 64):
        candidate = entity_id(type_, text, length)
        if not taken(candidate):
            return candidate
        if type_ == "CodeArea":
            break
    return f"{entity_id(type_, text)}-{content_hash(text, type_)[:12]}"


def full_row(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with every other column of :data:`ENTITY_COLUMNS` as NULL (what an insert
    naming fewer columns stores, since every defaulted column is always given)."""
    return {name: values.get(name) for name in ENTITY_COLUMNS}


def target_row(type_: str, name: str, new_id: str, source: str, now: datetime) -> dict[str, Any]:
    """The row of a new CodeArea/File entity ``name``."""
    return full_row(
        {
            "id": new_id,
            "type": type_,
            "content": name,
            "content_hash": content_hash(name, type_),
            "data": {},
            "confidence": 1.0,
            "source": source,
            "seen_count": 1,
            "created_at": now,
            "updated_at": now,
        }
    )


def item_row(item: PreparedItem, new_id: str, now: datetime) -> dict[str, Any]:
    """The row of a new knowledge item (a candidate is stored hidden and pending)."""
    from kgraph.knowledge.backfill import vector_values

    stamp = item.created_at or now
    values: dict[str, Any] = {
        "id": new_id,
        "type": item.type,
        "content": item.text,
        "content_hash": item.digest,
        "data": item.data,
        "confidence": item.confidence,
        "source": item.source,
        "source_ref": item.source_ref,
        "issue_number": item.issue_number,
        "session_id": item.session_id,
        "seen_count": 1,
        "created_at": stamp,
        "updated_at": stamp,
    }
    if item.vector is not None and item.model:
        values.update(vector_values(item.vector, item.model, item.digest))
    if item.candidate:
        values.update(data={**item.data, CANDIDATE: PENDING}, hidden_at=stamp)
    return full_row(values)


def duplicate_changes(
    row: Mapping[Any, Any], item: PreparedItem, how: str, bump: bool, now: datetime
) -> dict[str, Any]:
    """What storing ``item`` again changes on its stored duplicate ``row`` (``how``: "exact"
    or "near"); empty when nothing does."""
    from kgraph.knowledge.backfill import vector_values

    changes: dict[str, Any] = {}
    # Seen again means by another session or source: a long session captured in several
    # batches says its causes more than once, and that is not a second sighting.
    same_session = item.session_id is not None and row["session_id"] == item.session_id
    if bump and not same_session:
        changes["seen_count"] = row["seen_count"] + 1
        changes["confidence"] = bumped_confidence(row["confidence"], item.confidence)
        changes["updated_at"] = now
        if item.source == "manual" and row["hidden_at"] is not None:
            changes["hidden_at"] = None  # a person stating it again means it
        variants = list((row["data"] or {}).get("variants", []))
        if how == "near" and item.text not in variants and len(variants) < MAX_VARIANTS:
            changes["data"] = {**(row["data"] or {}), "variants": [*variants, item.text]}
    changes.update(corroboration(dict(row), item, changes.get("data")))
    if row["issue_number"] is None and item.issue_number is not None:
        changes["issue_number"] = item.issue_number
    if row["session_id"] is None and item.session_id is not None:
        changes["session_id"] = item.session_id
    stale_vector = (
        row["embedding_hash"] != row["content_hash"] or row["embedding_model"] != item.model
    )
    if how == "exact" and item.vector is not None and item.model and stale_vector:
        changes.update(vector_values(item.vector, item.model, row["content_hash"]))
    return changes


@dataclass(frozen=True)
class PlannedEdge:
    """One link :func:`attach_plan` asks for: ``source`` None is the item itself, otherwise
    it and ``target`` are (type, name) of a File/CodeArea entity created on first use."""

    source: tuple[str, str] | None
    target: tuple[str, str]
    type: str


def attach_plan(
    item_type: str, areas: Sequence[str], files: Sequence[str], area_rules: AreaRules | None
) -> list[PlannedEdge]:
    """The item's ABOUT/APPLIES_TO/IN_FILE edges and each file's ABOUT edge to its area, in
    the order they are written (which fixes relationship ids and entity creation order)."""
    area_edge = "APPLIES_TO" if item_type == "Pattern" else "ABOUT"
    plan = [PlannedEdge(None, ("CodeArea", area), area_edge) for area in areas]
    for path in files:
        plan.append(PlannedEdge(None, ("File", path), "IN_FILE"))
        area = infer_code_area(path, area_rules)
        plan.append(PlannedEdge(("File", path), ("CodeArea", area), "ABOUT"))
    return plan
