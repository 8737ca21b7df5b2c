"""Candidates: captured items that wait for corroboration before anything returns them.

Capture stores what an untrusted origin gave (the agent's explanations, the user's side of
the conversation, a session's topic; see :mod:`kgraph.capture.gate.candidates`) as a candidate.
A candidate is stored *hidden*, as a forgotten item is, so every read path — the hooks,
search, the MCP server, exports' consumers — leaves it out by the one test they already
make (``hidden_at IS NULL``); ``data["candidate"]`` says why it is hidden and how it left
that state:

- ``pending``: waiting;
- ``corroborated``: said again by another session (in the same words, or, once embedded,
  in words whose vectors are as close as :data:`SAME_CLAIM_COSINE`) or by a trusted origin
  (a commit, a compaction summary's errors-and-fixes, the model extractor when it is on) —
  shown from then on;
- ``accepted`` / ``rejected``: a person's verdict in ``kgraph knowledge review`` (or the
  MCP ``review`` tool, or ``knowledge restore``). A rejected candidate stays hidden for
  good: saying it again does not bring it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgraph.db.models import utcnow

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from kgraph.db import Database
    from kgraph.knowledge.prepare import PreparedItem
    from kgraph.knowledge.records import KnowledgeItem

CANDIDATE = "candidate"  # the key in an item's data
PENDING = "pending"
CORROBORATED = "corroborated"
ACCEPTED = "accepted"
REJECTED = "rejected"
# Two items of one type this close (all-MiniLM-L6-v2 cosine) state the same claim: a
# paraphrase scores about 0.9, the same topic with another claim well below.
SAME_CLAIM_COSINE = 0.9


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


def _pending_ids(conn: Connection) -> list[str]:
    """The ids of the pending candidates, newest first."""
    from sqlalchemy import select

    from kgraph.knowledge.model import KNOWLEDGE_TYPES
    from kgraph.knowledge.records import ENTITIES

    rows = conn.execute(
        select(ENTITIES.c.id, ENTITIES.c.data)
        .where(ENTITIES.c.type.in_(KNOWLEDGE_TYPES), ENTITIES.c.hidden_at.is_not(None))
        .order_by(ENTITIES.c.updated_at.desc(), ENTITIES.c.id)
    )
    return [str(entity_id) for entity_id, data in rows if state(data) == PENDING]


def count_pending(conn: Connection) -> int:
    """How many candidates wait for review (or for another session to say them again)."""
    return len(_pending_ids(conn))


def list_candidates(db: Database, *, limit: int = 50) -> list[KnowledgeItem]:
    """Pending candidates, newest first (what ``kgraph knowledge review`` shows)."""
    from kgraph.knowledge.records import load_items

    def read(conn: Connection) -> list[KnowledgeItem]:
        ids = _pending_ids(conn)[:limit]
        items = load_items(conn, ids)
        return [items[i] for i in ids if i in items]

    return db.read(read)


def review(db: Database, entity_id: str, accept: bool) -> str:
    """Accept (show from now on) or reject (keep hidden for good) a candidate; its id."""
    from kgraph.errors import InvalidValueError
    from kgraph.knowledge.records import ENTITIES, resolve_id
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


def corroborate_similar(db: Database, model: str, dim: int) -> int:
    """Show the pending candidates that another session said in other words: an item of the
    same type from a different session, whose ``model`` vector is at least
    :data:`SAME_CLAIM_COSINE` close, and that no person rejected and no retraction took
    back (a pending one is shown too). Returns how many items were shown."""
    import numpy as np

    from kgraph.knowledge.records import ENTITIES, load_items
    from kgraph.knowledge.store import fetch_row, update_entity
    from kgraph.knowledge.vectors import load_matrix

    pending = {i.id: i for i in list_candidates(db, limit=100_000)}
    if not pending:
        return 0
    ids, matrix = db.read(lambda conn: load_matrix(conn, model, dim, include_superseded=True))
    rows = {entity_id: n for n, entity_id in enumerate(ids)}
    mine = [i for i in pending if i in rows]
    if not mine:
        return 0
    scores = matrix[[rows[i] for i in mine]] @ matrix.T
    pairs: list[tuple[str, str]] = []
    for n, entity_id in enumerate(mine):
        close = [ids[c] for c in np.nonzero(scores[n] >= SAME_CLAIM_COSINE)[0]]
        pairs += [(entity_id, other) for other in close if other != entity_id]
    if not pairs:
        return 0
    others = db.read(lambda conn: load_items(conn, sorted({o for _, o in pairs})))
    shown: set[str] = set()
    for entity_id, other_id in pairs:
        item, other = pending[entity_id], others.get(other_id)
        if other is None or other.type != item.type or other.session_id == item.session_id:
            continue
        if state(other.data) == REJECTED or "retracted" in other.data:
            continue
        shown.add(entity_id)
        if other_id in pending:
            shown.add(other_id)

    def write(conn: Connection) -> None:
        for entity_id in sorted(shown):
            row = fetch_row(conn, ENTITIES.c.id == entity_id)
            if row is not None and is_pending(dict(row)):
                data = {**(row["data"] or {}), CANDIDATE: CORROBORATED}
                data["corroborated_by"] = "session (similar)"
                update_entity(conn, entity_id, hidden_at=None, data=data, updated_at=utcnow())

    if shown:
        db.write(write)
    return len(shown)
