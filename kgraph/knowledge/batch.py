"""Writing many prepared items in one transaction with a handful of statements.

:func:`kgraph.knowledge.store.write_item` runs about eleven statements per item (look up
the duplicate, check the id, insert, then look up and insert each File/CodeArea entity and
edge). A 10,000-item ``kgraph knowledge import`` spent most of its ~17 CPU-s in
SQLAlchemy's per-statement overhead. :func:`write_items` stores exactly the same rows: it
reads what the batch may touch up front (the duplicates and target entities by content
hash, the ids the new rows would take, the edges leaving entities that already exist),
replays ``write_item``'s decisions item by item in memory with the same builders
(:mod:`kgraph.knowledge.rows`), and then writes with one executemany for the entity rows
and one for the edges, in the order the item-by-item path would have inserted them, so
entity rowids, FTS rows (written by SQLite's insert trigger; PostgreSQL's tsvector column
is generated) and relationship ids come out the same.

Items that carry a vector or a near-duplicate match are written by ``write_item`` (the
embedding paths; import never has them): their vector triggers and near matches are not
worth a second implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from kgraph.db.models import utcnow
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.model import content_hash, entity_id
from kgraph.knowledge.prepare import PreparedItem
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS
from kgraph.knowledge.rows import (
    PlannedEdge,
    attach_plan,
    duplicate_changes,
    item_row,
    target_row,
    unique_id,
)
from kgraph.knowledge.store import ROW_COLUMNS, AddResult, write_item

# Bound values per IN (...) list: well under SQLite's 32,766 and PostgreSQL's 65,535.
_CHUNK = 900
_T = TypeVar("_T")


def _chunks(values: Iterable[_T]) -> Iterator[list[_T]]:
    ordered = sorted(set(values))  # type: ignore[type-var]
    for start in range(0, len(ordered), _CHUNK):
        yield ordered[start : start + _CHUNK]


def _load_rows(conn: Connection, digests: Iterable[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """Stored entities by (type, content hash), as ``write_item``'s ``fetch_row`` reads them."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for chunk in _chunks(digests):
        query = select(*ROW_COLUMNS).where(ENTITIES.c.content_hash.in_(chunk))
        for row in conn.execute(query).mappings():
            rows[(row["type"], row["content_hash"])] = dict(row)
    return rows


def _load_ids(conn: Connection, ids: Iterable[str]) -> set[str]:
    """Which of ``ids`` are taken."""
    taken: set[str] = set()
    for chunk in _chunks(ids):
        taken.update(conn.scalars(select(ENTITIES.c.id).where(ENTITIES.c.id.in_(chunk))))
    return taken


def _load_edges(conn: Connection, from_ids: Iterable[str]) -> set[tuple[str, str, str]]:
    """The (from, to, type) of every edge leaving ``from_ids``."""
    edges: set[tuple[str, str, str]] = set()
    columns = (RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id, RELATIONSHIPS.c.type)
    for chunk in _chunks(from_ids):
        query = select(*columns).where(RELATIONSHIPS.c.from_id.in_(chunk))
        edges.update((str(a), str(b), str(c)) for a, b, c in conn.execute(query))
    return edges


def _targets(plans: Sequence[list[PlannedEdge]]) -> set[tuple[str, str]]:
    refs: set[tuple[str, str]] = set()
    for plan in plans:
        for edge in plan:
            refs.add(edge.target)
            if edge.source is not None:
                refs.add(edge.source)
    return refs


class _Overlay:
    """The database as the batch has changed it so far, kept in memory until written."""

    def __init__(
        self,
        conn: Connection,
        rows: dict[tuple[str, str], dict[str, Any]],
        checked_ids: set[str],
        taken_ids: set[str],
        edges: set[tuple[str, str, str]],
    ) -> None:
        self.conn = conn
        self.rows = rows
        self.checked_ids = checked_ids  # ids whose existence was read up front
        self.taken_ids = taken_ids
        self.edges = edges
        self.now = utcnow()
        self.inserts: list[dict[str, Any]] = []
        self.new_ids: set[str] = set()
        self.updates: dict[str, dict[str, Any]] = {}
        self.edge_rows: list[dict[str, Any]] = []

    def taken(self, candidate: str) -> bool:
        """``id_exists`` seen through the batch: its new ids, then the database."""
        if candidate in self.new_ids:
            return True
        if candidate in self.checked_ids:
            return candidate in self.taken_ids
        return self.conn.scalar(select(ENTITIES.c.id).where(ENTITIES.c.id == candidate)) is not None

    def insert(self, key: tuple[str, str], row: dict[str, Any]) -> str:
        self.inserts.append(row)
        self.rows[key] = row
        self.new_ids.add(row["id"])
        return str(row["id"])

    def change(self, row: dict[str, Any], changes: dict[str, Any]) -> None:
        """Apply ``changes`` to ``row``: a row this batch inserts is inserted changed; a
        stored one gets one UPDATE with every change the batch made to it."""
        if not changes:
            return
        row.update(changes)
        if row["id"] not in self.new_ids:
            self.updates.setdefault(row["id"], {}).update(changes)

    def ensure_entity(self, type_: str, name: str, source: str) -> str:
        """``store.ensure_entity`` on the overlay."""
        row = self.rows.get((type_, content_hash(name, type_)))
        if row is not None:
            return str(row["id"])
        new_id = unique_id(type_, name, self.taken)
        return self.insert(
            (type_, content_hash(name, type_)), target_row(type_, name, new_id, source, self.now)
        )

    def ensure_edge(self, from_id: str, to_id: str, type_: str) -> None:
        """``store.ensure_edge`` (no data) on the overlay."""
        key = (from_id, to_id, type_)
        if key not in self.edges:
            self.edges.add(key)
            self.edge_rows.append(
                {
                    "from_id": from_id,
                    "to_id": to_id,
                    "type": type_,
                    "data": None,
                    "created_at": self.now,
                }
            )

    def flush(self) -> None:
        """Write what the batch changed: the new entities, the updates, the new edges."""
        if self.inserts:
            self.conn.execute(insert(ENTITIES), self.inserts)
        for entity_id_, changes in self.updates.items():
            self.conn.execute(update(ENTITIES).where(ENTITIES.c.id == entity_id_).values(changes))
        if self.edge_rows:
            self.conn.execute(insert(RELATIONSHIPS), self.edge_rows)


def _prepare(
    conn: Connection, items: Sequence[PreparedItem], plans: Sequence[list[PlannedEdge]]
) -> _Overlay:
    """Read up front everything the batch's decisions depend on."""
    refs = _targets(plans)
    rows = _load_rows(
        conn, [i.digest for i in items] + [content_hash(name, type_) for type_, name in refs]
    )
    new_items = [i for i in items if (i.type, i.digest) not in rows]
    new_refs = [r for r in refs if (r[0], content_hash(r[1], r[0])) not in rows]
    candidates = {entity_id(i.type, i.text, 10) for i in new_items}
    candidates |= {entity_id(type_, name, 10) for type_, name in new_refs}
    taken = _load_ids(conn, candidates)
    return _Overlay(conn, rows, candidates, taken, _load_edges(conn, _stored_ids(rows)))


def _stored_ids(rows: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    return [str(row["id"]) for row in rows.values()]


def write_items(
    conn: Connection,
    items: Sequence[PreparedItem],
    *,
    bump: bool = True,
    area_rules: AreaRules | None = None,
) -> list[AddResult]:
    """``[write_item(conn, item, ...) for item in items]``, storing the same rows with a
    few bulk statements; runs inside the caller's write transaction."""
    if any(i.vector is not None or i.near_duplicate is not None for i in items):
        return [write_item(conn, i, bump=bump, area_rules=area_rules) for i in items]
    plans = [attach_plan(i.type, i.areas, i.files, area_rules) for i in items]
    overlay = _prepare(conn, items, plans)
    results: list[AddResult] = []
    for item, plan in zip(items, plans, strict=True):
        key = (item.type, item.digest)
        row = overlay.rows.get(key)
        if row is not None:
            overlay.change(row, duplicate_changes(row, item, "exact", bump, overlay.now))
            item_id = str(row["id"])
            results.append(AddResult(item_id, False, "exact"))
        else:
            new_id = unique_id(item.type, item.text, overlay.taken)
            item_id = overlay.insert(key, item_row(item, new_id, overlay.now))
            results.append(AddResult(item_id, True, None))
        ensure = overlay.ensure_entity
        for edge in plan:
            source = item_id if edge.source is None else ensure(*edge.source, item.source)
            overlay.ensure_edge(source, ensure(*edge.target, item.source), edge.type)
    overlay.flush()
    return results
