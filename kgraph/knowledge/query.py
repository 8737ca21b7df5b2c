"""Structured queries over knowledge: the items about files, code areas or an issue, and
the items linked to a file or area (the records they return: :mod:`kgraph.knowledge.records`).

Every function runs one short read transaction and returns frozen records. Hidden
(``forget``) and superseded items are left out unless ``include_superseded=True``.
Queries use SQLAlchemy Core over the needed columns only: the embedding blobs are never
loaded here.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import (
    ColumnElement,
    and_,
    case,
    exists,
    func,
    literal,
    select,
    true,
    union_all,
)
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.errors import InvalidValueError
from kgraph.knowledge.areas import AreaRules, infer_code_area, normalise_path
from kgraph.knowledge.model import content_hash, parse_types
from kgraph.knowledge.records import (
    AREA_EDGES,
    ENTITIES,
    FILE_EDGES,
    RELATIONSHIPS,
    TARGET_EDGES,
    KnowledgeItem,
    load_items,
    visible_clause,
)

__all__ = ["linked_clause", "linked_ids", "list_items", "query_items"]


def _structural_ids(conn: Connection, type_: str, names: Sequence[str]) -> list[str]:
    if not names:
        return []
    hashes = [content_hash(n, type_) for n in names]
    return list(
        conn.scalars(
            select(ENTITIES.c.id).where(
                ENTITIES.c.type == type_, ENTITIES.c.content_hash.in_(hashes)
            )
        )
    )


def query_items(
    db: Database,
    *,
    files: Sequence[str] = (),
    code_areas: Sequence[str] = (),
    issue_number: int | None = None,
    types: Sequence[str] | None = None,
    limit: int = 50,
    include_superseded: bool = False,
    area_rules: AreaRules | None = None,
    expand_file_areas: bool = True,
) -> list[KnowledgeItem]:
    """Knowledge items about any of ``files`` / ``code_areas`` or tied to ``issue_number``.

    OR semantics. ``files`` are repo-relative paths; with ``expand_file_areas`` (default)
    the code areas of those files (stored File->CodeArea edges, else inferred with
    ``area_rules``) count too, so a file's query also finds its area's patterns. Ranking:
    a direct file match weighs 3, the issue 2, an area 1 (summed), then confidence, times
    seen, recency. Only knowledge types (or ``types``) are returned.
    """
    if limit <= 0:
        raise InvalidValueError("limit must be positive")
    wanted = parse_types(types)
    paths = [normalise_path(f) for f in files if f.strip()]
    area_names = [a.strip() for a in code_areas if a.strip()]
    if expand_file_areas:
        area_names += [infer_code_area(p, area_rules) for p in paths]

    def read(conn: Connection) -> list[KnowledgeItem]:
        file_ids = _structural_ids(conn, "File", paths)
        area_ids = _structural_ids(conn, "CodeArea", list(dict.fromkeys(area_names)))
        if expand_file_areas and file_ids:
            area_ids += list(
                conn.scalars(
                    select(RELATIONSHIPS.c.to_id).where(
                        RELATIONSHIPS.c.from_id.in_(file_ids), RELATIONSHIPS.c.type == "ABOUT"
                    )
                )
            )
        parts = []
        targets = list(dict.fromkeys(file_ids + area_ids))
        if targets:
            weight: ColumnElement[int] = literal(1)
            if file_ids:
                weight = case((RELATIONSHIPS.c.to_id.in_(file_ids), 3), else_=1)
            parts.append(
                select(RELATIONSHIPS.c.from_id.label("id"), weight.label("w")).where(
                    RELATIONSHIPS.c.to_id.in_(targets), RELATIONSHIPS.c.type.in_(TARGET_EDGES)
                )
            )
        if issue_number is not None:
            parts.append(
                select(ENTITIES.c.id.label("id"), literal(2).label("w")).where(
                    ENTITIES.c.issue_number == issue_number
                )
            )
        if not parts:
            return []
        hits = union_all(*parts).subquery()
        score = func.sum(hits.c.w).label("score")
        ranked = conn.execute(
            select(ENTITIES.c.id, score)
            .join(hits, hits.c.id == ENTITIES.c.id)
            .where(ENTITIES.c.type.in_(wanted), visible_clause(include_superseded))
            .group_by(ENTITIES.c.id)
            .order_by(
                score.desc(),
                ENTITIES.c.confidence.desc(),
                ENTITIES.c.seen_count.desc(),
                ENTITIES.c.updated_at.desc(),
                ENTITIES.c.id,
            )
            .limit(limit)
        ).all()
        ids = [r.id for r in ranked]
        items = load_items(conn, ids)
        return [items[i] for i in ids if i in items]

    return db.read(read)


def list_items(
    db: Database,
    *,
    types: Sequence[str] | None = None,
    limit: int = 50,
    include_superseded: bool = False,
    source: str | None = None,
) -> list[KnowledgeItem]:
    """Knowledge items, most recently updated first."""
    if limit <= 0:
        raise InvalidValueError("limit must be positive")
    wanted = parse_types(types)

    def read(conn: Connection) -> list[KnowledgeItem]:
        statement = select(ENTITIES.c.id).where(
            ENTITIES.c.type.in_(wanted), visible_clause(include_superseded)
        )
        if source is not None:
            statement = statement.where(ENTITIES.c.source == source)
        ids = list(
            conn.scalars(
                statement.order_by(ENTITIES.c.updated_at.desc(), ENTITIES.c.id).limit(limit)
            )
        )
        items = load_items(conn, ids)
        return [items[i] for i in ids if i in items]

    return db.read(read)


def linked_clause(
    conn: Connection, *, file: str | None = None, code_area: str | None = None
) -> ColumnElement[bool]:
    """A filter for entities linked to ``file`` and/or ``code_area`` (AND of the two)."""
    clauses: list[ColumnElement[bool]] = []
    for type_, name, edge_types in (
        ("File", normalise_path(file) if file else None, FILE_EDGES),
        ("CodeArea", code_area.strip() if code_area else None, AREA_EDGES),
    ):
        if name:
            clauses.append(
                exists().where(
                    RELATIONSHIPS.c.from_id == ENTITIES.c.id,
                    RELATIONSHIPS.c.type.in_(edge_types),
                    RELATIONSHIPS.c.to_id.in_(_structural_ids(conn, type_, [name])),
                )
            )
    return and_(true(), *clauses)


def linked_ids(
    conn: Connection, *, file: str | None = None, code_area: str | None = None
) -> set[str]:
    """Ids of entities linked to ``file`` and/or ``code_area`` (AND of the two)."""
    found: set[str] | None = None
    for type_, name, edge_types in (
        ("File", normalise_path(file) if file else None, FILE_EDGES),
        ("CodeArea", code_area.strip() if code_area else None, AREA_EDGES),
    ):
        if not name:
            continue
        target_ids = _structural_ids(conn, type_, [name])
        ids = set(
            conn.scalars(
                select(RELATIONSHIPS.c.from_id).where(
                    RELATIONSHIPS.c.to_id.in_(target_ids), RELATIONSHIPS.c.type.in_(edge_types)
                )
            )
        )
        found = ids if found is None else found & ids
    return found if found is not None else set()
