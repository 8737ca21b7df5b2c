"""Changing stored knowledge: link, supersede, hide (forget) and show, merge, replace text.

Adding an item is :mod:`kgraph.knowledge.store`; everything here acts on items that exist,
named by id or id prefix (``resolve_id``: NotFoundError for an unknown one). Nothing is
deleted: a superseded, forgotten or merged item stays in the database and in exports, and
the read paths leave it out (``hidden_at``, SUPERSEDES edges). Each change is one short
``db.write`` transaction, and any text it keeps (a reason, a replacement) is redacted first.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.models import utcnow
from kgraph.errors import InvalidValueError
from kgraph.knowledge.candidates import ACCEPTED, CANDIDATE
from kgraph.knowledge.model import check_relationship_type, content_hash
from kgraph.knowledge.prepare import prepared_text
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS, resolve_id
from kgraph.knowledge.rows import MAX_VARIANTS, bumped_confidence
from kgraph.knowledge.store import ensure_edge, fetch_row, update_entity
from kgraph.redact import redact


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
    :func:`~kgraph.knowledge.store.add_item`'s, ``content_hash``/``updated_at`` are renewed
    and a hidden item is shown again. Its vector goes stale (``embedding_hash`` no longer
    matches) and is redone by the next embedding pass. Returns False when the item already
    had this text and was visible. Raises NotFoundError for an unknown id, InvalidValueError
    for empty/oversized text or when another item of the same type already holds this text.
    """
    text = prepared_text(content, thorough_redaction)
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
