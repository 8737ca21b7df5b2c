"""JSONL export and import: how a team shares knowledge through git.

Export format (one JSON object per line, sorted so diffs between exports are small)::

    {"kind": "kgraph-knowledge", "version": 1}
    {"kind": "entity", "id": "lrn-…", "type": "Learning", "content": "…", "confidence": 0.8,
     "source": "manual", "source_ref": null, "issue_number": 12, "session_id": null,
     "seen_count": 2, "hidden_at": null, "data": {}, "created_at": "…Z", "updated_at": "…Z"}
    {"kind": "relationship", "from": "lrn-…", "type": "IN_FILE", "to": "file-…",
     "data": null, "created_at": "…Z"}

Everything is exported, forgotten and superseded items included. Vectors are not (they are
derived and model-specific: ``kgraph embed`` rebuilds them). Text is redacted on the way
out and on the way in.

Import reads that format losslessly and idempotently: an entity already present (same id,
or same type and content) is merged field by field (higher seen count and confidence, the
later ``updated_at``, hidden if either side is hidden, data keys added), so importing the
same file twice changes nothing. It also accepts simple lines from other tools::

    {"content": "…", "type": "learning", "files": ["a.py"], "code_area": "API",
     "confidence": 0.8, "issue": 12, "created_at": "2024-05-01T12:00:00Z"}

(``created_at``, optional, is when the knowledge was learned: recall breaks ties by it.)

The whole file is parsed and validated before anything is written (an error names the
line); writes then go in batches of short transactions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import isoformat, utcnow
from kgraph.errors import InvalidValueError, KgraphError
from kgraph.jsontext import may_hold_surrogates, without_surrogates
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.batch import write_items
from kgraph.knowledge.model import (
    ENTITY_TYPES,
    check_confidence,
    check_relationship_type,
    check_source,
    content_hash,
    parse_type,
)
from kgraph.knowledge.query import ENTITIES, RELATIONSHIPS
from kgraph.knowledge.store import (
    PreparedItem,
    _unique_id,
    ensure_edge,
    id_exists,
    prepare_item,
    update_entity,
)
from kgraph.redact import redact, redact_data

FORMAT = "kgraph-knowledge"
VERSION = 1
BATCH = 500
_TYPE_ORDER = {t: n for n, t in enumerate(ENTITY_TYPES)}


@dataclass(frozen=True)
class ExportReport:
    entities: int
    relationships: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ImportReport:
    created: int
    merged: int
    unchanged: int
    relationships_added: int
    relationships_skipped: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def export_lines(db: Database) -> Iterator[str]:
    """The export, line by line (without newlines), read in one transaction."""

    def read(conn: Connection) -> tuple[list[Any], list[Any]]:
        entities = conn.execute(
            select(
                ENTITIES.c.id,
                ENTITIES.c.type,
                ENTITIES.c.content,
                ENTITIES.c.confidence,
                ENTITIES.c.source,
                ENTITIES.c.source_ref,
                ENTITIES.c.issue_number,
                ENTITIES.c.session_id,
                ENTITIES.c.seen_count,
                ENTITIES.c.hidden_at,
                ENTITIES.c.data,
                ENTITIES.c.created_at,
                ENTITIES.c.updated_at,
            )
        ).all()
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


# --- import -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _EntityLine:
    id: str
    type: str
    content: str
    confidence: float
    source: str
    source_ref: str | None
    issue_number: int | None
    session_id: str | None
    seen_count: int
    hidden_at: datetime | None
    data: dict[str, Any]
    created_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True)
class _EdgeLine:
    from_id: str
    type: str
    to_id: str
    data: dict[str, Any] | None
    created_at: datetime | None


def _time(value: Any, field: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidValueError(f"{field} must be an ISO 8601 string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidValueError(f"{field}: {exc}") from exc
    if parsed.tzinfo is None:
        raise InvalidValueError(f"{field} needs a time zone (e.g. a trailing Z)")
    return parsed


def _opt_int(value: Any, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValueError(f"{field} must be an integer")
    return value


def _opt_str(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidValueError(f"{field} must be a string")
    return value


def _number(value: Any, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidValueError(f"{field} must be a number")
    return float(value)


def _parse_entity(record: dict[str, Any]) -> _EntityLine:
    entity_id = _opt_str(record.get("id"), "id")
    content = _opt_str(record.get("content"), "content")
    if not entity_id or not content:
        raise InvalidValueError("an entity needs id and content")
    data = record.get("data") or {}
    if not isinstance(data, dict):
        raise InvalidValueError("data must be an object")
    seen = _opt_int(record.get("seen_count"), "seen_count") or 1
    return _EntityLine(
        id=redact(entity_id, thorough=True),
        type=parse_type(str(record.get("type", ""))),
        content=redact(content, thorough=True),
        confidence=check_confidence(_number(record.get("confidence"), "confidence", 0.5)),
        source=check_source(str(record.get("source") or "import")),
        source_ref=redact(v, thorough=True)
        if (v := _opt_str(record.get("source_ref"), "source_ref"))
        else None,
        issue_number=_opt_int(record.get("issue_number"), "issue_number"),
        session_id=redact(v, thorough=True)
        if (v := _opt_str(record.get("session_id"), "session_id"))
        else None,
        seen_count=max(1, seen),
        hidden_at=_time(record.get("hidden_at"), "hidden_at"),
        data=redact_data(data, thorough=True),
        created_at=_time(record.get("created_at"), "created_at"),
        updated_at=_time(record.get("updated_at"), "updated_at"),
    )


def _parse_edge(record: dict[str, Any]) -> _EdgeLine:
    from_id = _opt_str(record.get("from"), "from")
    to_id = _opt_str(record.get("to"), "to")
    if not from_id or not to_id:
        raise InvalidValueError("a relationship needs from and to")
    data = record.get("data")
    if data is not None and not isinstance(data, dict):
        raise InvalidValueError("data must be an object or null")
    return _EdgeLine(
        from_id=redact(from_id, thorough=True),
        type=check_relationship_type(str(record.get("type", ""))),
        to_id=redact(to_id, thorough=True),
        data=redact_data(data, thorough=True) if data is not None else None,
        created_at=_time(record.get("created_at"), "created_at"),
    )


def _parse_simple(
    record: dict[str, Any], where: str, project_root: Path | None, area_rules: AreaRules | None
) -> PreparedItem:
    content = _opt_str(record.get("content"), "content")
    if not content:
        raise InvalidValueError("content is missing")
    files = record.get("files") or ([record["file"]] if isinstance(record.get("file"), str) else [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise InvalidValueError("files must be a list of strings")
    issue = record.get("issue", record.get("issue_number"))
    data = record.get("data")
    if data is not None and not isinstance(data, dict):
        raise InvalidValueError("data must be an object")
    source = str(record.get("source") or "import")
    return prepare_item(
        content,
        type=str(record.get("type") or "Learning"),
        code_area=_opt_str(record.get("code_area"), "code_area"),
        files=files,
        confidence=_number(record.get("confidence"), "confidence", 0.7),
        source=source,
        source_ref=_opt_str(record.get("source_ref"), "source_ref") or where,
        issue_number=_opt_int(issue, "issue"),
        session_id=_opt_str(record.get("session_id"), "session_id"),
        data=data,
        project_root=project_root,
        area_rules=area_rules,
        created_at=_time(record.get("created_at"), "created_at"),
    )


Parsed = _EntityLine | _EdgeLine | PreparedItem


def parse_lines(
    lines: Iterable[str],
    name: str = "<input>",
    project_root: Path | None = None,
    area_rules: AreaRules | None = None,
) -> list[Parsed]:
    """Validate every line; InvalidValueError("<name> line N: ...") on the first bad one."""
    parsed: list[Parsed] = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        try:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidValueError(f"not JSON ({exc.msg})") from exc
            except RecursionError as exc:
                raise InvalidValueError("JSON nested too deep") from exc
            if not isinstance(record, dict):
                raise InvalidValueError("each line must be a JSON object")
            if may_hold_surrogates(line):
                record = without_surrogates(record)
            kind = record.get("kind")
            if kind == FORMAT:
                if record.get("version") != VERSION:
                    raise InvalidValueError(f"unsupported version {record.get('version')!r}")
            elif kind == "entity":
                parsed.append(_parse_entity(record))
            elif kind == "relationship":
                parsed.append(_parse_edge(record))
            elif kind is None and "content" in record:
                parsed.append(_parse_simple(record, name, project_root, area_rules))
            else:
                raise InvalidValueError(f"unknown line kind {kind!r}")
        except KgraphError as exc:
            raise InvalidValueError(f"{name} line {number}: {exc}") from exc
    return parsed


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


def _merge_entity(conn: Connection, line: _EntityLine, ids: dict[str, str]) -> str:
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
            line.id if not id_exists(conn, line.id) else _unique_id(conn, line.type, line.content)
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
    entities = [p for p in parsed if isinstance(p, _EntityLine)]
    simple = [p for p in parsed if isinstance(p, PreparedItem)]
    edges = [p for p in parsed if isinstance(p, _EdgeLine)]

    for start in range(0, len(entities), BATCH):
        batch = entities[start : start + BATCH]

        def write_entities(conn: Connection, batch: list[_EntityLine] = batch) -> list[str]:
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

        def write_edges(conn: Connection, batch: list[_EdgeLine] = edge_batch) -> list[str]:
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
