"""Writing the JSONL export (the format: :mod:`kgraph.knowledge.transfer`).

Every entity and relationship is exported, forgotten and superseded items included, read in
one transaction and sorted (entities by type, then id; edges by from, type, to) so two
exports of similar databases differ little in git. Text is redacted on the way out: an
export is meant to be committed. Vectors are not exported (derived and model-specific).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import isoformat
from kgraph.knowledge.model import ENTITY_TYPES
from kgraph.knowledge.records import ITEM_COLUMNS, RELATIONSHIPS
from kgraph.knowledge.transfer import FORMAT, VERSION
from kgraph.redact import redact, redact_data

_TYPE_ORDER = {t: n for n, t in enumerate(ENTITY_TYPES)}


@dataclass(frozen=True)
class ExportReport:
    entities: int
    relationships: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def export_lines(db: Database) -> Iterator[str]:
    """The export, line by line (without newlines), read in one transaction."""

    def read(conn: Connection) -> tuple[list[Any], list[Any]]:
        entities = conn.execute(select(*ITEM_COLUMNS)).all()  # read by name below
        edges = conn.execute(
            select(
                RELATIONSHIPS.c.from_id,
                RELATIONSHIPS.c.type,
                RELATIONSHIPS.c.to_id,
                RELATIONSHIPS.c.data,
                RELATIONSHIPS.c.created_at,
            ).order_by(RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.type, RELATIONSHIPS.c.to_id)
        ).all()
        return list(entities), list(edges)

    entities, edges = db.read(read)
    yield _dump({"kind": FORMAT, "version": VERSION})
    for e in sorted(entities, key=lambda r: (_TYPE_ORDER.get(r.type, 99), r.id)):
        yield _dump(
            {
                "kind": "entity",
                "id": e.id,
                "type": e.type,
                "content": redact(e.content),
                "confidence": e.confidence,
                "source": e.source,
                "source_ref": redact(e.source_ref) if e.source_ref else e.source_ref,
                "issue_number": e.issue_number,
                "session_id": e.session_id,
                "seen_count": e.seen_count,
                "hidden_at": isoformat(e.hidden_at),
                "data": redact_data(e.data or {}),
                "created_at": isoformat(e.created_at),
                "updated_at": isoformat(e.updated_at),
            }
        )
    for r in edges:
        yield _dump(
            {
                "kind": "relationship",
                "from": r.from_id,
                "type": r.type,
                "to": r.to_id,
                "data": redact_data(r.data) if r.data is not None else None,
                "created_at": isoformat(r.created_at),
            }
        )


def export_knowledge(db: Database, out: TextIO) -> ExportReport:
    """Write the JSONL export to ``out``."""
    entities = relationships = 0
    for line in export_lines(db):
        out.write(line + "\n")
        if line.startswith('{"kind": "entity"'):
            entities += 1
        elif line.startswith('{"kind": "relationship"'):
            relationships += 1
    return ExportReport(entities, relationships)
