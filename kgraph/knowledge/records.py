"""The stored knowledge items as records: the tables, :class:`KnowledgeItem` and
:class:`Edge`, the columns read, which items are visible, and loading items by id (or by
the source they were captured from).

Apart from :mod:`kgraph.knowledge.query` (structured queries: by file, area, issue, edge),
because the writers (store, batch, edit, capture) need these and none of the queries.
Every function runs one short read transaction (or works in the caller's) and returns
frozen records; the embedding blobs are never loaded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    and_,
    exists,
    select,
    true,
)
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import isoformat, table_of
from kgraph.db.models.knowledge import Entity, Relationship
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge.model import KNOWLEDGE_TYPES

__all__ = [
    "ENTITIES",
    "ITEM_COLUMNS",
    "RELATIONSHIPS",
    "Edge",
    "KnowledgeItem",
    "find_by_source_ref",
    "get_item",
    "get_items",
    "item_edges",
    "load_items",
    "resolve_id",
    "source_ref_id",
    "visible_clause",
]


# Core tables (kgraph never builds ORM instances, see kgraph/db/models/base.py).
ENTITIES = table_of(Entity)
RELATIONSHIPS = table_of(Relationship)

# Edges from an item to the CodeArea/File entities it is about.
AREA_EDGES = ("ABOUT", "APPLIES_TO")
FILE_EDGES = ("IN_FILE", "APPLIES_TO")
TARGET_EDGES = ("ABOUT", "IN_FILE", "APPLIES_TO")
_CHUNK = 500


@dataclass(frozen=True)
class KnowledgeItem:
    """One entity with the names of the code areas and files it is linked to."""

    id: str
    type: str
    content: str
    confidence: float
    source: str
    source_ref: str | None
    issue_number: int | None
    session_id: str | None
    seen_count: int
    code_areas: tuple[str, ...]
    files: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    hidden_at: datetime | None = None
    superseded_by: tuple[str, ...] = ()
    embedding_model: str | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def active(self) -> bool:
        """Neither forgotten nor superseded."""
        return self.hidden_at is None and not self.superseded_by

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "content": self.content,
            "confidence": round(self.confidence, 4),
            "source": self.source,
            "source_ref": self.source_ref,
            "issue_number": self.issue_number,
            "session_id": self.session_id,
            "seen_count": self.seen_count,
            "code_areas": list(self.code_areas),
            "files": list(self.files),
            "created_at": isoformat(self.created_at),
            "updated_at": isoformat(self.updated_at),
            "hidden_at": isoformat(self.hidden_at),
            "superseded_by": list(self.superseded_by),
            "embedding_model": self.embedding_model,
            "data": self.data,
        }


@dataclass(frozen=True)
class Edge:
    """One relationship seen from an item: ``direction`` is "out" (item -> other) or "in"."""

    direction: str
    type: str
    other_id: str
    other_type: str
    other_content: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "type": self.type,
            "id": self.other_id,
            "entity_type": self.other_type,
            "content": self.other_content,
        }


ITEM_COLUMNS = (
    ENTITIES.c.id,
    ENTITIES.c.type,
    ENTITIES.c.content,
    ENTITIES.c.confidence,
    ENTITIES.c.source,
    ENTITIES.c.source_ref,
    ENTITIES.c.issue_number,
    ENTITIES.c.session_id,
    ENTITIES.c.seen_count,
    ENTITIES.c.created_at,
    ENTITIES.c.updated_at,
    ENTITIES.c.hidden_at,
    ENTITIES.c.embedding_model,
    ENTITIES.c.data,
)


def superseded_clause() -> ColumnElement[bool]:
    """True for entities some other entity SUPERSEDES."""
    return exists().where(
        RELATIONSHIPS.c.to_id == ENTITIES.c.id, RELATIONSHIPS.c.type == "SUPERSEDES"
    )


def visible_clause(include_superseded: bool = False) -> ColumnElement[bool]:
    """The filter that leaves out forgotten and superseded entities (unless included)."""
    if include_superseded:
        return true()
    return and_(ENTITIES.c.hidden_at.is_(None), ~superseded_clause())


def chunks(values: Sequence[str], size: int = _CHUNK) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def load_items(conn: Connection, ids: Sequence[str]) -> dict[str, KnowledgeItem]:
    """The items with these ids (missing ids are skipped), with their areas and files."""
    rows: list[Any] = []
    for part in chunks(list(dict.fromkeys(ids))):
        rows.extend(conn.execute(select(*ITEM_COLUMNS).where(ENTITIES.c.id.in_(part))).all())
    if not rows:
        return {}
    found = [r.id for r in rows]
    areas: dict[str, list[str]] = defaultdict(list)
    files: dict[str, list[str]] = defaultdict(list)
    superseded_by: dict[str, list[str]] = defaultdict(list)
    # Two indexed lookups (edges by from_id, then target names by id) instead of a join:
    # with a join SQLite may start from the few CodeArea/File rows and probe every edge.
    targets: dict[str, list[str]] = defaultdict(list)
    for part in chunks(found):
        for from_id, to_id in conn.execute(
            select(RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id).where(
                RELATIONSHIPS.c.from_id.in_(part), RELATIONSHIPS.c.type.in_(TARGET_EDGES)
            )
        ).all():
            targets[from_id].append(to_id)
        for from_id, to_id in conn.execute(
            select(RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id).where(
                RELATIONSHIPS.c.to_id.in_(part), RELATIONSHIPS.c.type == "SUPERSEDES"
            )
        ).all():
            superseded_by[to_id].append(from_id)
    names: dict[str, tuple[str, str]] = {}
    for part in chunks(sorted({t for ts in targets.values() for t in ts})):
        # The type is checked here, not in SQL: see kgraph.recall.items (plan choice).
        for target_id, target_type, name in conn.execute(
            select(ENTITIES.c.id, ENTITIES.c.type, ENTITIES.c.content).where(
                ENTITIES.c.id.in_(part)
            )
        ).all():
            if target_type in ("CodeArea", "File"):
                names[target_id] = (target_type, name)
    for from_id, target_ids in targets.items():
        for target_type, name in sorted(names[t] for t in target_ids if t in names):
            (areas if target_type == "CodeArea" else files)[from_id].append(name)
    return {
        r.id: KnowledgeItem(
            id=r.id,
            type=r.type,
            content=r.content,
            confidence=r.confidence,
            source=r.source,
            source_ref=r.source_ref,
            issue_number=r.issue_number,
            session_id=r.session_id,
            seen_count=r.seen_count,
            code_areas=tuple(dict.fromkeys(areas.get(r.id, ()))),
            files=tuple(dict.fromkeys(files.get(r.id, ()))),
            created_at=r.created_at,
            updated_at=r.updated_at,
            hidden_at=r.hidden_at,
            superseded_by=tuple(sorted(superseded_by.get(r.id, ()))),
            embedding_model=r.embedding_model,
            data=dict(r.data or {}),
        )
        for r in rows
    }


def resolve_id(conn: Connection, text: str) -> str:
    """The id ``text`` names: an exact id, else a unique prefix of one (``lrn-3f9a``)."""
    value = text.strip()
    if not value:
        raise InvalidValueError("empty id")
    if conn.scalar(select(ENTITIES.c.id).where(ENTITIES.c.id == value)) is not None:
        return value
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    matches = conn.scalars(
        select(ENTITIES.c.id).where(ENTITIES.c.id.like(escaped + "%", escape="\\")).limit(2)
    ).all()
    if len(matches) == 1:
        return str(matches[0])
    if matches:
        raise InvalidValueError(f"id prefix {value!r} is ambiguous")
    raise NotFoundError(f"no knowledge item {value}")


def get_item(db: Database, entity_id: str) -> KnowledgeItem:
    """The entity ``entity_id`` (any type; a unique id prefix works). NotFoundError if none."""

    def read(conn: Connection) -> KnowledgeItem:
        resolved = resolve_id(conn, entity_id)
        return load_items(conn, [resolved])[resolved]

    return db.read(read)


def get_items(db: Database, entity_ids: Sequence[str]) -> dict[str, KnowledgeItem]:
    """The entities with these exact ids, in one read (ids that name nothing are left out)."""
    return db.read(lambda conn: load_items(conn, entity_ids))


def item_edges(db: Database, entity_id: str) -> tuple[KnowledgeItem, list[Edge]]:
    """The entity and every relationship touching it (outgoing first)."""

    def read(conn: Connection) -> tuple[KnowledgeItem, list[Edge]]:
        resolved = resolve_id(conn, entity_id)
        item = load_items(conn, [resolved])[resolved]
        other = ENTITIES.alias("other")
        edges: list[Edge] = []
        for direction, mine, theirs in (
            ("out", RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id),
            ("in", RELATIONSHIPS.c.to_id, RELATIONSHIPS.c.from_id),
        ):
            rows = conn.execute(
                select(RELATIONSHIPS.c.type, other.c.id, other.c.type, other.c.content)
                .join(other, other.c.id == theirs)
                .where(mine == resolved)
                .order_by(RELATIONSHIPS.c.type, other.c.type, other.c.content)
            ).all()
            edges.extend(Edge(direction, t, oid, otype, content) for t, oid, otype, content in rows)
        return item, edges

    return db.read(read)


def find_by_source_ref(db: Database, source: str, source_ref: str) -> str | None:
    """The id of a knowledge item stored from exactly this source and reference, else None.

    Capture uses it to stay idempotent (a commit sha, a transcript position). Hidden and
    superseded items count: what was captured once is not captured again.
    """

    return db.read(lambda conn: source_ref_id(conn, source, source_ref))


def source_ref_id(conn: Connection, source: str, source_ref: str) -> str | None:
    """:func:`find_by_source_ref` inside a caller's transaction."""
    found = conn.scalars(
        select(ENTITIES.c.id)
        .where(
            ENTITIES.c.source == source,
            ENTITIES.c.source_ref == source_ref,
            ENTITIES.c.type.in_(KNOWLEDGE_TYPES),
        )
        .limit(1)
    ).first()
    return None if found is None else str(found)
