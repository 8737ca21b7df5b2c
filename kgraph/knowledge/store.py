"""Writing knowledge: adding an item (redacted, de-duplicated) with its area and file links.

Every write path redacts first (``kgraph.redact``, in :mod:`kgraph.knowledge.prepare`), then
runs one short ``db.write`` transaction. Nothing slow happens inside a transaction: an
embedder, when given, runs before it. The statement helpers here (read a row, update one,
create a CodeArea/File entity or an edge once) are the ones every other write uses:
:mod:`kgraph.knowledge.edit` (link, supersede, forget, merge), ``batch``, ``importer``,
``candidates`` and capture.

De-duplication: the same content of one type (after normalising case/whitespace, see
``kgraph.knowledge.model.normalise``) is stored once; storing it again bumps ``seen_count``
and raises confidence (``max(old, new) + 0.05``, capped at 1). Where a vector is at hand, a
visible item of the same type with cosine >= 0.95 counts as the same item (its variant
text is kept in ``data["variants"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, RowMapping, insert, select, update
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.model import content_hash
from kgraph.knowledge.prepare import PreparedItem, prepare_item
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS
from kgraph.knowledge.rows import (
    attach_plan,
    duplicate_changes,
    item_row,
    target_row,
    unique_id,
)

if TYPE_CHECKING:
    from kgraph.embeddings import Embedder


@dataclass(frozen=True)
class AddResult:
    """The stored item's id; ``created`` is False when an existing item was bumped instead.

    ``duplicate_of`` says how it matched: "exact" (same normalised content) or "near"
    (cosine >= 0.95); None for a new item.
    """

    entity_id: str
    created: bool
    duplicate_of: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.entity_id, "created": self.created, "duplicate": self.duplicate_of}


# Columns write paths read back (never the embedding blob).
ROW_COLUMNS = (
    ENTITIES.c.id,
    ENTITIES.c.type,
    ENTITIES.c.content,
    ENTITIES.c.content_hash,
    ENTITIES.c.confidence,
    ENTITIES.c.seen_count,
    ENTITIES.c.issue_number,
    ENTITIES.c.session_id,
    ENTITIES.c.hidden_at,
    ENTITIES.c.data,
    ENTITIES.c.embedding_model,
    ENTITIES.c.embedding_hash,
)


def fetch_row(conn: Connection, *where: ColumnElement[bool]) -> RowMapping | None:
    """One entity's scalar columns as a mapping, or None."""
    return conn.execute(select(*ROW_COLUMNS).where(*where).limit(1)).mappings().first()


def id_exists(conn: Connection, entity_id: str) -> bool:
    return conn.scalar(select(ENTITIES.c.id).where(ENTITIES.c.id == entity_id)) is not None


def update_entity(conn: Connection, entity_id: str, **values: Any) -> None:
    if values:
        conn.execute(update(ENTITIES).where(ENTITIES.c.id == entity_id).values(**values))


def new_entity_id(conn: Connection, type_: str, text: str) -> str:
    """The deterministic id of a new entity, lengthened in the (rare) case another text
    already holds it."""
    return unique_id(type_, text, lambda candidate: id_exists(conn, candidate))


def ensure_entity(conn: Connection, type_: str, name: str, source: str = "manual") -> str:
    """The id of the CodeArea/File entity ``name``, created once."""
    digest = content_hash(name, type_)
    existing = conn.scalar(
        select(ENTITIES.c.id).where(ENTITIES.c.type == type_, ENTITIES.c.content_hash == digest)
    )
    if existing is not None:
        return str(existing)
    new_id = new_entity_id(conn, type_, name)
    conn.execute(insert(ENTITIES).values(**target_row(type_, name, new_id, source, utcnow())))
    return new_id


def ensure_edge(
    conn: Connection,
    from_id: str,
    to_id: str,
    type_: str,
    data: dict[str, Any] | None = None,
    created_at: datetime | None = None,
) -> bool:
    """Add the edge unless it exists; True when added."""
    exists = conn.scalar(
        select(RELATIONSHIPS.c.id).where(
            RELATIONSHIPS.c.from_id == from_id,
            RELATIONSHIPS.c.to_id == to_id,
            RELATIONSHIPS.c.type == type_,
        )
    )
    if exists is not None:
        return False
    conn.execute(
        insert(RELATIONSHIPS).values(
            from_id=from_id, to_id=to_id, type=type_, data=data, created_at=created_at or utcnow()
        )
    )
    return True


def attach(
    conn: Connection,
    item_id: str,
    item_type: str,
    *,
    areas: Sequence[str],
    files: Sequence[str],
    area_rules: AreaRules | None,
    source: str,
) -> None:
    """Create the CodeArea/File entities and the item's ABOUT/APPLIES_TO/IN_FILE edges."""
    for edge in attach_plan(item_type, areas, files, area_rules):
        source_id = item_id if edge.source is None else ensure_entity(conn, *edge.source, source)
        ensure_edge(conn, source_id, ensure_entity(conn, *edge.target, source), edge.type)


def write_item(
    conn: Connection, item: PreparedItem, *, bump: bool = True, area_rules: AreaRules | None = None
) -> AddResult:
    """Insert ``item`` or bump its duplicate, and link it; runs inside a write transaction.

    :func:`kgraph.knowledge.batch.write_items` stores the same rows for many items at once.
    """
    now = utcnow()
    row = fetch_row(conn, ENTITIES.c.type == item.type, ENTITIES.c.content_hash == item.digest)
    how = "exact" if row is not None else None
    if row is None and item.near_duplicate is not None:
        row = fetch_row(conn, ENTITIES.c.id == item.near_duplicate)
        how = "near" if row is not None else None
    if row is not None and how is not None:
        update_entity(conn, row["id"], **duplicate_changes(row, item, how, bump, now))
        attach(
            conn,
            row["id"],
            row["type"],
            areas=item.areas,
            files=item.files,
            area_rules=area_rules,
            source=item.source,
        )
        return AddResult(row["id"], False, how)
    new_id = new_entity_id(conn, item.type, item.text)
    conn.execute(insert(ENTITIES).values(**item_row(item, new_id, now)))
    attach(
        conn,
        new_id,
        item.type,
        areas=item.areas,
        files=item.files,
        area_rules=area_rules,
        source=item.source,
    )
    return AddResult(new_id, True, None)


def add_item(
    db: Database,
    content: str,
    *,
    type: str = "Learning",
    code_area: str | None = None,
    files: Sequence[str] = (),
    confidence: float = 0.7,
    source: str = "manual",
    source_ref: str | None = None,
    issue_number: int | None = None,
    session_id: str | None = None,
    data: dict[str, Any] | None = None,
    embedder: Embedder | None = None,
    project_root: Path | None = None,
    area_rules: AreaRules | None = None,
    bump: bool = True,
    thorough_redaction: bool = True,
    created_at: datetime | None = None,
) -> AddResult:
    """Store one knowledge item (redacted, de-duplicated) with its area and file links.

    ``code_area`` None infers the areas from ``files`` (with ``area_rules``, default rules
    when None). ``files`` are made repo-relative against ``project_root`` when absolute.
    ``embedder``, if given, embeds the text before the transaction (pass only a cheap one
    on latency-bound paths) and enables near-duplicate merging. ``bump=False`` leaves an
    existing duplicate's counters alone (idempotent import). ``thorough_redaction`` adds
    detect-secrets' plugins (~180 ms once per process) to the built-in patterns; pass
    False on a hook's hot path.
    """
    item = prepare_item(
        content,
        type=type,
        code_area=code_area,
        files=files,
        confidence=confidence,
        source=source,
        source_ref=source_ref,
        issue_number=issue_number,
        session_id=session_id,
        data=data,
        project_root=project_root,
        area_rules=area_rules,
        thorough_redaction=thorough_redaction,
        created_at=created_at,
    )
    if embedder is not None:
        from kgraph.knowledge.vectors import find_near_duplicate

        vector = embedder.embed([item.text])[0]
        item = replace(
            item,
            vector=vector,
            model=embedder.model_name,
            near_duplicate=find_near_duplicate(db, vector, embedder.model_name, item.type),
        )
    return db.write(lambda conn: write_item(conn, item, bump=bump, area_rules=area_rules))
