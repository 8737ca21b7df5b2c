"""Candidates: captured items that wait for corroboration before anything returns them.

Capture stores what an untrusted origin gave (the agent's explanations, the user's side of
the conversation, a session's topic; see :mod:`kgraph.capture.gate.candidates`) as a candidate.
A candidate is stored *hidden*, as a forgotten item is, so every read path — the hooks,
search, the MCP server, exports' consumers — leaves it out by the one test they already
make (``hidden_at IS NULL``); ``data["candidate"]`` says why it is hidden and how it left
that state:

- ``pending``: waiting;
- ``corroborated``: said again by another session or by a trusted origin (a commit, a
  compaction summary's errors-and-fixes, the model extractor when it is on) — shown from
  then on;
- ``accepted`` / ``rejected``: a person's verdict in ``kgraph knowledge review`` (or the
  MCP ``review_candidate`` tool). A rejected candidate stays hidden for good: saying it
  again does not bring it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgraph.db.models import utcnow

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from kgraph.db import Database
    from kgraph.knowledge.query import KnowledgeItem
    from kgraph.knowledge.store import PreparedItem

CANDIDATE = "candidate"  # the key in an item's data
PENDING = "pending"
CORROBORATED = "corroborated"
ACCEPTED = "accepted"
REJECTED = "rejected"


def state(data: Mapping[str, Any] | None) -> str | None:
    """The candidate state of an item's data (None for an item that never was one)."""
    value = (data or {}).get(CANDIDATE)
    return value if isinstance(value, str) else None


def is_pending(row: Mapping[str, Any]) -> bool:
    return row["hidden_at"] is not None and state(row["data"]) == PENDING


def corroboration(
    row: Mapping[str, Any], item: PreparedItem, data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The changes that show a pending candidate ``row`` which ``item`` says again, when
    ``item`` corroborates it: it comes from a trusted origin, another session, or the model
    extractor confirming what the rules found. Empty when nothing changes. ``data``: the
    row's data as the caller already changed it."""
    if not is_pending(row):
        return {}
    data = dict(row["data"] if data is None else data)
    another_session = item.session_id is not None and item.session_id != row["session_id"]
    if item.candidate and not another_session:
        return {}
    by = "session" if another_session else str(item.data.get("origin") or item.source)
    data.update({CANDIDATE: CORROBORATED, "corroborated_by": by})
    return {"hidden_at": None, "data": data}


def list_candidates(db: Database, *, limit: int = 50) -> list[KnowledgeItem]:
    """Pending candidates, newest first (what ``kgraph knowledge review`` shows)."""
    from sqlalchemy import select

    from kgraph.knowledge.model import KNOWLEDGE_TYPES
    from kgraph.knowledge.query import ENTITIES, load_items

    def read(conn: Connection) -> list[KnowledgeItem]:
        ids = list(
            conn.scalars(
                select(ENTITIES.c.id)
                .where(ENTITIES.c.type.in_(KNOWLEDGE_TYPES), ENTITIES.c.hidden_at.is_not(None))
                .order_by(ENTITIES.c.updated_at.desc(), ENTITIES.c.id)
            )
        )
        items = load_items(conn, ids)
        pending = [items[i] for i in ids if i in items and state(items[i].data) == PENDING]
        return pending[:limit]

    return db.read(read)


def review(db: Database, entity_id: str, accept: bool) -> str:
    """Accept (show from now on) or reject (keep hidden for good) a candidate; its id."""
    from kgraph.errors import InvalidValueError
    from kgraph.knowledge.query import ENTITIES, resolve_id
    from kgraph.knowledge.store import fetch_row, update_entity

    def write(conn: Connection) -> str:
        row = fetch_row(conn, ENTITIES.c.id == resolve_id(conn, entity_id))
        assert row is not None
        if state(row["data"]) is None:
            raise InvalidValueError(f"{row['id']} is not a captured candidate")
        data = {**(row["data"] or {}), CANDIDATE: ACCEPTED if accept else REJECTED}
        hidden = None if accept else (row["hidden_at"] or utcnow())
        update_entity(conn, row["id"], hidden_at=hidden, data=data, updated_at=utcnow())
        return str(row["id"])

    return db.write(write)
