"""Overview and upkeep: stats, code-area and file listings, pruning.

Prune policy (``prune``; a dry run unless ``apply=True``). A visible knowledge item is a
candidate when either

- **low confidence**: ``confidence < min_confidence`` (default 0.3), whatever its source; or
- **stale**: captured automatically (source is not ``manual``), seen only once, confidence
  below ``stale_confidence`` (default 0.6), and not updated for ``stale_days`` (default 180).

Pruning hides candidates (like ``knowledge forget``, with the reason in ``data``); nothing is
deleted and ``knowledge restore ID`` brings an item back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Select, and_, func, or_, select, update
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.errors import InvalidValueError
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.knowledge.records import (
    AREA_EDGES,
    ENTITIES,
    RELATIONSHIPS,
    KnowledgeItem,
    load_items,
    superseded_clause,
    visible_clause,
)

PRUNE_MIN_CONFIDENCE = 0.3
PRUNE_STALE_DAYS = 180
PRUNE_STALE_CONFIDENCE = 0.6


@dataclass(frozen=True)
class Stats:
    by_type: dict[str, int]
    hidden: int
    superseded: int
    by_source: dict[str, int]
    embedded: dict[str, int]
    relationships: dict[str, int]
    # Of the hidden: what capture stored as candidates, waiting for review (or for another
    # session to say them again).
    candidates: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "entities": self.by_type,
            "hidden": self.hidden,
            "candidates": self.candidates,
            "superseded": self.superseded,
            "sources": self.by_source,
            "embedded": self.embedded,
            "relationships": self.relationships,
        }


def stats(db: Database) -> Stats:
    """Counts of entities by type and source, hidden/superseded items and candidates,
    vectors by model, relationships by type."""
    from kgraph.knowledge.candidates import count_pending

    def counts(conn: Connection, statement: Select[Any]) -> dict[str, int]:
        return {str(key): int(count) for key, count in conn.execute(statement).all()}

    def read(conn: Connection) -> Stats:
        by_type = counts(conn, select(ENTITIES.c.type, func.count()).group_by(ENTITIES.c.type))
        knowledge = ENTITIES.c.type.in_(KNOWLEDGE_TYPES)
        hidden = conn.scalar(
            select(func.count()).where(knowledge, ENTITIES.c.hidden_at.is_not(None))
        )
        superseded = conn.scalar(select(func.count()).where(knowledge, superseded_clause()))
        by_source = counts(
            conn,
            select(ENTITIES.c.source, func.count()).where(knowledge).group_by(ENTITIES.c.source),
        )
        embedded = counts(
            conn,
            select(ENTITIES.c.embedding_model, func.count())
            .where(knowledge, ENTITIES.c.embedding_model.is_not(None))
            .group_by(ENTITIES.c.embedding_model),
        )
        relationships = counts(
            conn, select(RELATIONSHIPS.c.type, func.count()).group_by(RELATIONSHIPS.c.type)
        )
        return Stats(
            by_type,
            hidden or 0,
            superseded or 0,
            by_source,
            embedded,
            relationships,
            candidates=count_pending(conn),
        )

    return db.read(read)


@dataclass(frozen=True)
class NamedCount:
    """A CodeArea or File with how many visible knowledge items are about it."""

    id: str
    name: str
    items: int
    files: int = 0
    area: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "items": self.items}
        if self.area is not None:
            out["area"] = self.area
        else:
            out["files"] = self.files
        return out


def _item_counts(conn: Connection, edge_types: tuple[str, ...]) -> dict[str, int]:
    item = ENTITIES.alias("item")
    rows = conn.execute(
        select(RELATIONSHIPS.c.to_id, func.count())
        .join(item, item.c.id == RELATIONSHIPS.c.from_id)
        .where(
            RELATIONSHIPS.c.type.in_(edge_types),
            item.c.type.in_(KNOWLEDGE_TYPES),
            item.c.hidden_at.is_(None),
        )
        .group_by(RELATIONSHIPS.c.to_id)
    ).all()
    return {to_id: count for to_id, count in rows}


def list_areas(db: Database) -> list[NamedCount]:
    """Every code area with its item and file counts, busiest first."""

    def read(conn: Connection) -> list[NamedCount]:
        areas = conn.execute(
            select(ENTITIES.c.id, ENTITIES.c.content).where(ENTITIES.c.type == "CodeArea")
        ).all()
        items = _item_counts(conn, AREA_EDGES)
        file_entity = ENTITIES.alias("file")
        files: dict[str, int] = {
            to_id: count
            for to_id, count in conn.execute(
                select(RELATIONSHIPS.c.to_id, func.count())
                .join(file_entity, file_entity.c.id == RELATIONSHIPS.c.from_id)
                .where(RELATIONSHIPS.c.type == "ABOUT", file_entity.c.type == "File")
                .group_by(RELATIONSHIPS.c.to_id)
            ).all()
        }
        out = [NamedCount(i, name, items.get(i, 0), files.get(i, 0)) for i, name in areas]
        return sorted(out, key=lambda a: (-a.items, -a.files, a.name))

    return db.read(read)


def list_files(db: Database, *, code_area: str | None = None) -> list[NamedCount]:
    """Every file with its item count and code area, busiest first."""

    def read(conn: Connection) -> list[NamedCount]:
        area = ENTITIES.alias("area")
        rows = conn.execute(
            select(ENTITIES.c.id, ENTITIES.c.content, area.c.content)
            .outerjoin(
                RELATIONSHIPS,
                and_(RELATIONSHIPS.c.from_id == ENTITIES.c.id, RELATIONSHIPS.c.type == "ABOUT"),
            )
            .outerjoin(area, and_(area.c.id == RELATIONSHIPS.c.to_id, area.c.type == "CodeArea"))
            .where(ENTITIES.c.type == "File")
        ).all()
        items = _item_counts(conn, ("IN_FILE", "APPLIES_TO"))
        out = [
            NamedCount(i, path, items.get(i, 0), area=area_name or "")
            for i, path, area_name in rows
            if code_area is None or (area_name or "").lower() == code_area.lower()
        ]
        return sorted(out, key=lambda f: (-f.items, f.name))

    return db.read(read)


@dataclass(frozen=True)
class PruneCandidate:
    item: KnowledgeItem
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.item.to_dict(), "reason": self.reason}


def prune(
    db: Database,
    *,
    apply: bool = False,
    min_confidence: float = PRUNE_MIN_CONFIDENCE,
    stale_days: int = PRUNE_STALE_DAYS,
    stale_confidence: float = PRUNE_STALE_CONFIDENCE,
) -> list[PruneCandidate]:
    """The items the prune policy selects (module docstring); hidden when ``apply``."""
    if stale_days < 0:
        raise InvalidValueError("stale days must not be negative")
    cutoff = utcnow() - timedelta(days=stale_days)
    low = ENTITIES.c.confidence < min_confidence
    stale = and_(
        ENTITIES.c.source != "manual",
        ENTITIES.c.seen_count <= 1,
        ENTITIES.c.confidence < stale_confidence,
        ENTITIES.c.updated_at < cutoff,
    )

    def select_candidates(conn: Connection) -> list[PruneCandidate]:
        rows = conn.execute(
            select(ENTITIES.c.id, low.label("low"))
            .where(ENTITIES.c.type.in_(KNOWLEDGE_TYPES), visible_clause(), or_(low, stale))
            .order_by(ENTITIES.c.confidence, ENTITIES.c.updated_at, ENTITIES.c.id)
        ).all()
        items = load_items(conn, [r.id for r in rows])
        return [
            PruneCandidate(items[r.id], "low-confidence" if r.low else "stale")
            for r in rows
            if r.id in items
        ]

    def hide(conn: Connection) -> list[PruneCandidate]:
        candidates = select_candidates(conn)
        now = utcnow()
        for candidate in candidates:
            data = {**candidate.item.data, "hidden_reason": f"pruned: {candidate.reason}"}
            conn.execute(
                update(ENTITIES)
                .where(ENTITIES.c.id == candidate.item.id)
                .values(hidden_at=now, data=data)
            )
        return candidates

    return db.write(hide) if apply else db.read(select_candidates)
