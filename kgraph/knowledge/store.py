"""Writing knowledge: add (redacted, de-duplicated), link, supersede, forget, merge.

Every write path redacts first (``kgraph.redact``), then runs one short ``db.write``
transaction. Nothing slow happens inside a transaction: an embedder, when given, runs
before it.

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

from sqlalchemy import ColumnElement, RowMapping, delete, insert, select, update
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.errors import InvalidValueError
from kgraph.knowledge.areas import AreaRules, infer_code_area, relative_path
from kgraph.knowledge.candidates import ACCEPTED, CANDIDATE
from kgraph.knowledge.model import (
    KNOWLEDGE_TYPES,
    MAX_CONTENT_CHARS,
    check_confidence,
    check_relationship_type,
    check_source,
    clean_content,
    content_hash,
    parse_type,
)
from kgraph.knowledge.query import ENTITIES, RELATIONSHIPS, resolve_id
from kgraph.knowledge.rows import (
    MAX_VARIANTS,
    attach_plan,
    bumped_confidence,
    duplicate_changes,
    item_row,
    target_row,
    unique_id,
)
from kgraph.redact import redact, redact_data

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
_ROW_COLUMNS = (
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
    return conn.execute(select(*_ROW_COLUMNS).where(*where).limit(1)).mappings().first()


def id_exists(conn: Connection, entity_id: str) -> bool:
    return conn.scalar(select(ENTITIES.c.id).where(ENTITIES.c.id == entity_id)) is not None


def update_entity(conn: Connection, entity_id: str, **values: Any) -> None:
    if values:
        conn.execute(update(ENTITIES).where(ENTITIES.c.id == entity_id).values(**values))


def _unique_id(conn: Connection, type_: str, text: str) -> str:
    """The deterministic id, lengthened in the (rare) case another text already holds it."""
    return unique_id(type_, text, lambda candidate: id_exists(conn, candidate))


def ensure_entity(conn: Connection, type_: str, name: str, source: str = "manual") -> str:
    """The id of the CodeArea/File entity ``name``, created once."""
    digest = content_hash(name, type_)
    existing = conn.scalar(
        select(ENTITIES.c.id).where(ENTITIES.c.type == type_, ENTITIES.c.content_hash == digest)
    )
    if existing is not None:
        return str(existing)
    new_id = _unique_id(conn, type_, name)
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


def prepare_targets(
    code_area: str | None,
    files: Sequence[str],
    project_root: Path | None,
    area_rules: AreaRules | None,
    thorough_redaction: bool = True,
) -> tuple[list[str], list[str]]:
    """Repo-relative file paths and the area names an item is about, redacted: they become
    File/CodeArea entities, their ids and FTS rows, and the context snapshot."""
    # Redacted before the path is normalised too: that folds "://" into ":/", which hides
    # a URL's password from the pattern that finds it.
    paths = list(
        dict.fromkeys(
            redact(
                relative_path(redact(f, thorough=thorough_redaction), project_root),
                thorough=thorough_redaction,
            )
            for f in files
            if f.strip()
        )
    )
    paths = [p for p in paths if p and p != "."]
    if code_area is not None and code_area.strip():
        areas = [redact(code_area.strip(), thorough=thorough_redaction)]
    else:
        areas = list(dict.fromkeys(infer_code_area(p, area_rules) for p in paths))
    return paths, areas


@dataclass(frozen=True)
class PreparedItem:
    """A validated, redacted item ready to be written (see :func:`prepare_item`)."""

    type: str
    text: str
    digest: str
    confidence: float
    source: str
    source_ref: str | None
    issue_number: int | None
    session_id: str | None
    data: dict[str, Any]
    files: tuple[str, ...]
    areas: tuple[str, ...]
    created_at: datetime | None = None
    vector: Any = None  # numpy row, when embedded before the transaction
    model: str | None = None
    near_duplicate: str | None = None
    # Stored hidden until corroborated (kgraph.knowledge.candidates); a capture's untrusted
    # origins set it.
    candidate: bool = False


def prepare_item(
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
    project_root: Path | None = None,
    area_rules: AreaRules | None = None,
    thorough_redaction: bool = True,
    created_at: datetime | None = None,
) -> PreparedItem:
    """Validate, redact and normalise an item (no database access). See :func:`add_item`."""
    type_ = parse_type(type, KNOWLEDGE_TYPES)
    confidence = check_confidence(confidence)
    check_source(source)
    text = clean_content(redact(content, thorough=thorough_redaction))
    if not text:
        raise InvalidValueError("content is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidValueError(f"content is {len(text)} characters (max {MAX_CONTENT_CHARS})")
    ref = redact(source_ref, thorough=thorough_redaction) if source_ref else source_ref
    sid = redact(session_id, thorough=thorough_redaction) if session_id else session_id
    extra = redact_data(data or {}, thorough=thorough_redaction)
    if not isinstance(extra, dict):
        raise InvalidValueError("data must be a JSON object")
    paths, areas = prepare_targets(code_area, files, project_root, area_rules, thorough_redaction)
    return PreparedItem(
        type=type_,
        text=text,
        digest=content_hash(text),
        confidence=confidence,
        source=source,
        source_ref=ref,
        issue_number=issue_number,
        session_id=sid,
        data=extra,
        files=tuple(paths),
        areas=tuple(areas),
        created_at=created_at,
    )


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
    new_id = _unique_id(conn, item.type, item.text)
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


def link(db: Database, from_id: str, to_id: str, type: str) -> None:
    """Add the relationship ``from_id -type-> to_id`` (idempotent; ids may be prefixes).

    Raises NotFoundError for an unknown id, InvalidValueError for a bad type, a self-link,
    or a SUPERSEDES edge that would make two items supersede each other.
    """
    edge_type = check_relationship_type(type)

    def write(conn: Connection) -> None:
        source = resolve_id(conn, from_id)
        target = resolve_id(conn, to_id)
        if source == target:
            raise InvalidValueError(f"cannot link {source} to itself")
        if edge_type == "SUPERSEDES":
            reverse = conn.scalar(
                select(RELATIONSHIPS.c.id).where(
                    RELATIONSHIPS.c.from_id == target,
                    RELATIONSHIPS.c.to_id == source,
                    RELATIONSHIPS.c.type == "SUPERSEDES",
                )
            )
            if reverse is not None:
                raise InvalidValueError(f"{target} already supersedes {source}")
        ensure_edge(conn, source, target, edge_type)

    db.write(write)


def supersede(db: Database, old_id: str, new_id: str) -> tuple[str, str]:
    """Mark ``old_id`` superseded by ``new_id`` (a SUPERSEDES edge new -> old).

    The old item stays in the database and in exports; search, queries and context leave
    it out. Returns the resolved (old, new) ids.
    """

    def ids(conn: Connection) -> tuple[str, str]:
        return resolve_id(conn, old_id), resolve_id(conn, new_id)

    old, new = db.read(ids)
    link(db, new, old, "SUPERSEDES")
    return old, new


def unsupersede(db: Database, old_id: str) -> int:
    """Remove every SUPERSEDES edge pointing at ``old_id``; returns how many."""

    def write(conn: Connection) -> int:
        target = resolve_id(conn, old_id)
        result = conn.execute(
            delete(RELATIONSHIPS).where(
                RELATIONSHIPS.c.to_id == target, RELATIONSHIPS.c.type == "SUPERSEDES"
            )
        )
        return int(result.rowcount)

    return db.write(write)


def set_hidden(db: Database, entity_id: str, hidden: bool, reason: str | None = None) -> str:
    """Hide (``knowledge forget``) or show again (``knowledge restore``) an item. Restoring
    a captured candidate accepts it, as ``knowledge review --accept`` does."""

    def write(conn: Connection) -> str:
        row = fetch_row(conn, ENTITIES.c.id == resolve_id(conn, entity_id))
        assert row is not None
        data = dict(row["data"] or {})
        if hidden and row["hidden_at"] is None:
            if reason:
                data["hidden_reason"] = redact(reason, thorough=True)
            update_entity(conn, row["id"], hidden_at=utcnow(), data=data)
        elif not hidden and row["hidden_at"] is not None:
            data.pop("hidden_reason", None)
            if CANDIDATE in data:
                data[CANDIDATE] = ACCEPTED
            update_entity(conn, row["id"], hidden_at=None, data=data)
        return str(row["id"])

    return db.write(write)


def merge_into(db: Database, keep_id: str, drop_id: str) -> None:
    """Fold ``drop_id`` into ``keep_id``: counts and links move, drop is superseded by keep."""
    db.write(lambda conn: merge_rows(conn, keep_id, drop_id))


def merge_rows(conn: Connection, keep_id: str, drop_id: str) -> None:
    """:func:`merge_into` inside the caller's transaction."""
    keep = fetch_row(conn, ENTITIES.c.id == keep_id)
    drop = fetch_row(conn, ENTITIES.c.id == drop_id)
    if keep is None or drop is None or keep_id == drop_id:
        return
    keep_data = dict(keep["data"] or {})
    variants = list(keep_data.get("variants", []))
    if drop["content"] not in variants and len(variants) < MAX_VARIANTS:
        variants.append(drop["content"])
    update_entity(
        conn,
        keep_id,
        seen_count=keep["seen_count"] + drop["seen_count"],
        confidence=bumped_confidence(keep["confidence"], drop["confidence"]),
        data={**keep_data, "variants": variants},
        updated_at=utcnow(),
        issue_number=keep["issue_number"]
        if keep["issue_number"] is not None
        else drop["issue_number"],
    )
    update_entity(conn, drop_id, data={**(drop["data"] or {}), "merged_into": keep_id})
    edges = conn.execute(
        select(RELATIONSHIPS.c.to_id, RELATIONSHIPS.c.type, RELATIONSHIPS.c.data).where(
            RELATIONSHIPS.c.from_id == drop_id, RELATIONSHIPS.c.type != "SUPERSEDES"
        )
    ).all()
    for to_id, edge_type, data in edges:
        if to_id != keep_id:
            ensure_edge(conn, keep_id, to_id, edge_type, data)
    ensure_edge(conn, keep_id, drop_id, "SUPERSEDES", {"reason": "near-duplicate"})


def replace_content(
    db: Database, entity_id: str, content: str, *, thorough_redaction: bool = True
) -> bool:
    """Replace a knowledge item's text in place (added for CLAUDE.md sync, issue 4).

    The id, links, source and source_ref stay; the text is redacted and cleaned like
    :func:`add_item`'s, ``content_hash``/``updated_at`` are renewed and a hidden item is shown
    again. Its vector goes stale (``embedding_hash`` no longer matches) and is redone by the
    next embedding pass. Returns False when the item already had this text and was visible.
    Raises NotFoundError for an unknown id, InvalidValueError for empty/oversized text or when
    another item of the same type already holds this text.
    """
    text = clean_content(redact(content, thorough=thorough_redaction))
    if not text:
        raise InvalidValueError("content is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidValueError(f"content is {len(text)} characters (max {MAX_CONTENT_CHARS})")
    digest = content_hash(text)

    def write(conn: Connection) -> bool:
        row = fetch_row(conn, ENTITIES.c.id == resolve_id(conn, entity_id))
        assert row is not None
        if row["content"] == text and row["hidden_at"] is None:
            return False
        if row["content_hash"] != digest:
            clash = conn.scalar(
                select(ENTITIES.c.id).where(
                    ENTITIES.c.type == row["type"],
                    ENTITIES.c.content_hash == digest,
                    ENTITIES.c.id != row["id"],
                )
            )
            if clash is not None:
                raise InvalidValueError(f"{clash} already holds this {row['type'].lower()} text")
        update_entity(
            conn, row["id"], content=text, content_hash=digest, hidden_at=None, updated_at=utcnow()
        )
        return True

    return db.write(write)
