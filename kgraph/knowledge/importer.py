"""Importing the JSONL format (:mod:`kgraph.knowledge.transfer`) losslessly and idempotently.

The whole input is parsed and validated first (:func:`~kgraph.knowledge.transfer.parse_lines`),
so a bad line writes nothing. Then, in batches of short transactions: exported entities are
inserted or merged field by field into the item already present (same id, or same type and
content: higher seen count and confidence, the later ``updated_at``, hidden if either side
is, data keys added), so importing the same file twice changes nothing; simple lines go
through the batch write path (:func:`kgraph.knowledge.batch.write_items`) without bumping
duplicates; relationships follow, with ids mapped to the entities they merged into, and are
skipped when an end is unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.batch import write_items
from kgraph.knowledge.model import content_hash
from kgraph.knowledge.prepare import PreparedItem
from kgraph.knowledge.records import ENTITIES
from kgraph.knowledge.store import ensure_edge, id_exists, new_entity_id, update_entity
from kgraph.knowledge.transfer import EdgeLine, EntityLine, parse_lines

BATCH = 500


@dataclass(frozen=True)
class ImportReport:
    created: int
    merged: int
    unchanged: int
    relationships_added: int
    relationships_skipped: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_MERGE_COLUMNS = (
    ENTITIES.c.id,
    ENTITIES.c.type,
    ENTITIES.c.content_hash,
    ENTITIES.c.seen_count,
    ENTITIES.c.confidence,
    ENTITIES.c.issue_number,
    ENTITIES.c.session_id,
    ENTITIES.c.source_ref,
    ENTITIES.c.data,
    ENTITIES.c.hidden_at,
    ENTITIES.c.updated_at,
)


def _merge_entity(conn: Connection, line: EntityLine, ids: dict[str, str]) -> str:
    """Insert or merge one exported entity; returns "created", "merged" or "unchanged"."""
    digest = content_hash(line.content, line.type)
    row = conn.execute(select(*_MERGE_COLUMNS).where(ENTITIES.c.id == line.id)).mappings().first()
    if row is not None and (row["type"] != line.type or row["content_hash"] != digest):
        row = None  # the id is taken by something else: match by content instead
    if row is None:
        row = (
            conn.execute(
                select(*_MERGE_COLUMNS).where(
                    ENTITIES.c.type == line.type, ENTITIES.c.content_hash == digest
                )
            )
            .mappings()
            .first()
        )
    if row is None:
        new_id = (
            line.id
            if not id_exists(conn, line.id)
            else new_entity_id(conn, line.type, line.content)
        )
        created = line.created_at or line.updated_at or utcnow()
        conn.execute(
            insert(ENTITIES).values(
                id=new_id,
                type=line.type,
                content=line.content,
                content_hash=digest,
                data=line.data,
                confidence=line.confidence,
                source=line.source,
                source_ref=line.source_ref,
                issue_number=line.issue_number,
                session_id=line.session_id,
                seen_count=line.seen_count,
                hidden_at=line.hidden_at,
                created_at=created,
                updated_at=line.updated_at or created,
            )
        )
        ids[line.id] = new_id
        return "created"
    ids[line.id] = row["id"]
    updates: dict[str, Any] = {
        "seen_count": max(row["seen_count"], line.seen_count),
        "confidence": max(row["confidence"], line.confidence),
        "issue_number": row["issue_number"]
        if row["issue_number"] is not None
        else line.issue_number,
        "session_id": row["session_id"] or line.session_id,
        "source_ref": row["source_ref"] or line.source_ref,
        "data": {**line.data, **(row["data"] or {})},
    }
    if line.hidden_at is not None and row["hidden_at"] is None:
        updates["hidden_at"] = line.hidden_at
    if line.updated_at is not None and line.updated_at > row["updated_at"]:
        updates["updated_at"] = line.updated_at
    changes = {key: value for key, value in updates.items() if row[key] != value}
    update_entity(conn, row["id"], **changes)
    return "merged" if changes else "unchanged"


def import_knowledge(
    db: Database,
    lines: Iterable[str],
    *,
    name: str = "<input>",
    project_root: Path | None = None,
    area_rules: AreaRules | None = None,
) -> ImportReport:
    """Import an export (or simple lines) idempotently; see the module docstring."""
    parsed = parse_lines(lines, name, project_root, area_rules)
    counts = {"created": 0, "merged": 0, "unchanged": 0, "added": 0, "skipped": 0}
    ids: dict[str, str] = {}
    entities = [p for p in parsed if isinstance(p, EntityLine)]
    simple = [p for p in parsed if isinstance(p, PreparedItem)]
    edges = [p for p in parsed if isinstance(p, EdgeLine)]

    for start in range(0, len(entities), BATCH):
        batch = entities[start : start + BATCH]

        def write_entities(conn: Connection, batch: list[EntityLine] = batch) -> list[str]:
            return [_merge_entity(conn, line, ids) for line in batch]

        for outcome in db.write(write_entities):
            counts[outcome] += 1

    for start in range(0, len(simple), BATCH):
        items = simple[start : start + BATCH]

        def write_simple(conn: Connection, items: list[PreparedItem] = items) -> list[bool]:
            written = write_items(conn, items, bump=False, area_rules=area_rules)
            return [result.created for result in written]

        for created in db.write(write_simple):
            counts["created" if created else "unchanged"] += 1

    for start in range(0, len(edges), BATCH):
        edge_batch = edges[start : start + BATCH]

        def write_edges(conn: Connection, batch: list[EdgeLine] = edge_batch) -> list[str]:
            outcomes = []
            for edge in batch:
                from_id = ids.get(edge.from_id, edge.from_id)
                to_id = ids.get(edge.to_id, edge.to_id)
                if not (id_exists(conn, from_id) and id_exists(conn, to_id)):
                    outcomes.append("skipped")
                elif ensure_edge(conn, from_id, to_id, edge.type, edge.data, edge.created_at):
                    outcomes.append("added")
            return outcomes

        for outcome in db.write(write_edges):
            counts[outcome] += 1

    return ImportReport(
        counts["created"], counts["merged"], counts["unchanged"], counts["added"], counts["skipped"]
    )
