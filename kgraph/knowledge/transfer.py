"""The JSONL transfer format: how a team shares knowledge through git.

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

This module holds the format and reads it: :func:`parse_lines` validates and redacts every
line into typed records before anything is written (an error names the line).
:mod:`kgraph.knowledge.export` writes the format; :mod:`kgraph.knowledge.importer` stores
parsed lines, in batches of short transactions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kgraph.errors import InvalidValueError, KgraphError
from kgraph.jsontext import may_hold_surrogates, without_surrogates
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.model import (
    check_confidence,
    check_relationship_type,
    check_source,
    parse_type,
)
from kgraph.knowledge.prepare import PreparedItem, prepare_item
from kgraph.redact import redact, redact_data

FORMAT = "kgraph-knowledge"
VERSION = 1


@dataclass(frozen=True)
class EntityLine:
    """An exported entity, checked and redacted."""

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
class EdgeLine:
    """An exported relationship, checked and redacted (ids as in the file)."""

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


def _parse_entity(record: dict[str, Any]) -> EntityLine:
    entity_id = _opt_str(record.get("id"), "id")
    content = _opt_str(record.get("content"), "content")
    if not entity_id or not content:
        raise InvalidValueError("an entity needs id and content")
    data = record.get("data") or {}
    if not isinstance(data, dict):
        raise InvalidValueError("data must be an object")
    seen = _opt_int(record.get("seen_count"), "seen_count") or 1
    return EntityLine(
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


def _parse_edge(record: dict[str, Any]) -> EdgeLine:
    from_id = _opt_str(record.get("from"), "from")
    to_id = _opt_str(record.get("to"), "to")
    if not from_id or not to_id:
        raise InvalidValueError("a relationship needs from and to")
    data = record.get("data")
    if data is not None and not isinstance(data, dict):
        raise InvalidValueError("data must be an object or null")
    return EdgeLine(
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


Parsed = EntityLine | EdgeLine | PreparedItem


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
