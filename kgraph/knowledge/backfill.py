"""Embedding the stored items: the backfill of missing vectors, the server's vector index,
and the near-duplicate merges a new vector reveals (the search over stored vectors is
:mod:`kgraph.knowledge.vectors`).

Embedding work (the model) always runs outside database transactions; each batch is then
written in its own short transaction, with the merges of its items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.embeddings import Embedder, pack
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.knowledge.records import ENTITIES
from kgraph.knowledge.vectors import NEAR_DUPLICATE_COSINE, scan

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "EMBED_BATCH_SIZE",
    "EmbedReport",
    "build_vector_index",
    "count_missing",
    "embed_missing",
    "merge_near_duplicates",
    "vector_values",
]

EMBED_BATCH_SIZE = 64


def vector_values(vector: NDArray[np.float32], model: str, digest: str) -> dict[str, Any]:
    """The column values storing ``vector`` for a text whose content hash is ``digest``."""
    return {
        "embedding": pack(vector),
        "embedding_model": model,
        "embedding_dim": int(vector.shape[-1]),
        "embedding_hash": digest,
    }


@dataclass(frozen=True)
class EmbedReport:
    """What ``embed_missing`` did."""

    model: str
    dim: int
    embedded: int
    merged: int
    remaining: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "dim": self.dim,
            "embedded": self.embedded,
            "merged_near_duplicates": self.merged,
            "remaining": self.remaining,
        }


def _pending(conn: Connection, model: str, reembed: bool) -> list[tuple[str, str, str]]:
    statement = select(ENTITIES.c.id, ENTITIES.c.content, ENTITIES.c.content_hash).where(
        ENTITIES.c.type.in_(KNOWLEDGE_TYPES)
    )
    if not reembed:
        statement = statement.where(
            (ENTITIES.c.embedding.is_(None))
            | (ENTITIES.c.embedding_model.is_(None))
            | (ENTITIES.c.embedding_model != model)
            | (ENTITIES.c.embedding_hash.is_(None))
            | (ENTITIES.c.embedding_hash != ENTITIES.c.content_hash)
        )
    return [(r[0], r[1], r[2]) for r in conn.execute(statement.order_by(ENTITIES.c.id)).all()]


def count_missing(db: Database, model: str) -> int:
    """How many knowledge items have no current vector of ``model``."""
    return len(db.read(lambda s: _pending(s, model, False)))


def embed_missing(
    db: Database,
    embedder: Embedder,
    *,
    reembed: bool = False,
    batch_size: int = EMBED_BATCH_SIZE,
    merge_duplicates: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedReport:
    """Embed every knowledge item lacking a current vector of ``embedder.model_name``.

    ``reembed=True`` re-embeds everything (switching models overwrites the old vectors).
    Batches are embedded outside any transaction and written one short transaction each,
    with the near-duplicate merges of the batch's items (see :func:`merge_near_duplicates`):
    a run killed between a batch's vectors and its merges left the merges undone for good,
    since the next run found nothing to embed. ``progress(done, total)`` is called after
    each batch.
    """
    model = embedder.model_name
    pending = db.read(lambda s: _pending(s, model, reembed))
    total = len(pending)
    done = merged = 0
    embedded_ids: list[str] = []
    if progress:
        progress(0, total)
    for start in range(0, total, batch_size):
        batch = pending[start : start + batch_size]
        vectors = embedder.embed([content for _, content, _ in batch])

        def write(
            conn: Connection,
            batch: list[tuple[str, str, str]] = batch,
            vectors: NDArray[np.float32] = vectors,
        ) -> tuple[list[str], int]:
            written: list[str] = []
            for (entity_id, _content, digest), vector in zip(batch, vectors, strict=True):
                # Only if the text is unchanged since it was read; else the next run does it.
                result = conn.execute(
                    update(ENTITIES)
                    .where(ENTITIES.c.id == entity_id, ENTITIES.c.content_hash == digest)
                    .values(**vector_values(vector, model, digest))
                )
                if result.rowcount:
                    written.append(entity_id)
            dim = int(vectors.shape[-1])
            merges = merge_near_duplicates(conn, model, dim, written) if merge_duplicates else 0
            return written, merges

        written, merges = db.write(write)
        embedded_ids.extend(written)
        merged += merges
        done += len(batch)
        if progress:
            progress(done, total)
    build_vector_index(db, model, embedder.dim)
    remaining = count_missing(db, model)
    return EmbedReport(model, embedder.dim, len(embedded_ids), merged, remaining)


def build_vector_index(db: Database, model: str, dim: int | None = None) -> bool:
    """On a PostgreSQL server with pgvector, build the HNSW index of ``model``'s vectors
    when missing (``dim``: theirs, else read from the stored vectors); True when it is
    ready. Elsewhere (SQLite, no extension, no vectors yet) False and nothing changes.
    Called by the backfill and, on a server, by the capture worker after each session."""
    if db.dialect != "postgresql":
        return False
    from kgraph.db.pgvector_build import ensure_index

    if dim is None:
        stored = db.read(
            lambda conn: conn.scalar(
                select(ENTITIES.c.embedding_dim)
                .where(ENTITIES.c.embedding_model == model, ENTITIES.c.embedding.is_not(None))
                .limit(1)
            )
        )
        if stored is None:
            return False
        dim = int(stored)
    return ensure_index(db, model, dim)


def merge_near_duplicates(conn: Connection, model: str, dim: int, ids: Sequence[str]) -> int:
    """Merge visible same-type items with cosine >= 0.95 to one of ``ids``; returns merges.

    Inside the caller's transaction (the one writing the vectors of ``ids``). In each group
    the oldest item is kept; the others are marked superseded by it (never deleted) and
    their seen counts, files and areas move to it. The matrix is scanned, not taken from
    the cache: it holds this transaction's own uncommitted vectors.
    """
    import numpy as np

    from kgraph.knowledge.edit import merge_rows

    if not ids:
        return 0
    wanted = set(ids)
    types = sorted(
        set(conn.scalars(select(ENTITIES.c.type).where(ENTITIES.c.id.in_(list(wanted)))))
    )
    merges: list[tuple[str, str]] = []
    for type_ in types:
        all_ids, matrix = scan(conn, model, dim, (type_,), False)
        if len(all_ids) < 2:
            continue
        index = {entity_id: n for n, entity_id in enumerate(all_ids)}
        rows = [index[i] for i in all_ids if i in wanted]
        parent = list(range(len(all_ids)))

        def find(n: int, parent: list[int] = parent) -> int:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        for start in range(0, len(rows), 256):
            part = rows[start : start + 256]
            sims = matrix[part] @ matrix.T
            for offset, r in enumerate(part):
                for c in np.nonzero(sims[offset] >= NEAR_DUPLICATE_COSINE)[0]:
                    if int(c) != r:
                        parent[find(int(c))] = find(r)
        groups: dict[int, list[str]] = {}
        for n, entity_id in enumerate(all_ids):
            groups.setdefault(find(n), []).append(entity_id)
        for members in groups.values():
            if len(members) > 1:
                keep = _oldest(conn, members)
                merges.extend((keep, other) for other in members if other != keep)
    for keep, drop in merges:
        merge_rows(conn, keep, drop)
    return len(merges)


def _oldest(conn: Connection, ids: Sequence[str]) -> str:
    row = conn.execute(
        select(ENTITIES.c.id)
        .where(ENTITIES.c.id.in_(list(ids)))
        .order_by(ENTITIES.c.created_at, ENTITIES.c.id)
        .limit(1)
    ).scalar_one()
    return str(row)
