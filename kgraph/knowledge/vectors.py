"""Stored vectors: loading them as one matrix, nearest neighbours, backfill, near-duplicates.

Vectors are float32 blobs in ``entities.embedding`` with the model name and dimension
beside them. Only vectors of one model (and its dimension) are ever compared: every query
here filters on ``embedding_model``. Similarity is the dot product of L2-normalised rows
(cosine), computed with one numpy matrix product over all candidates (a linear scan; at
10k x 384 that is ~4 ms, see scripts/bench_search.py).

On a PostgreSQL server with pgvector (kgraph.db.pgvector, detected at run time) the
backfill also builds an HNSW index of the model's vectors, and :func:`ranked` lets the
server pick the k nearest (``ORDER BY ... <=> ... LIMIT k``) under the same filters
instead of loading the whole matrix; their exact scores are then computed here as on the
numpy path, so both paths rank and score alike (up to the index's approximation).

Embedding work (the model) always runs outside database transactions; each batch is then
written in its own short transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, select, text, update
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.embeddings import Embedder, pack
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.knowledge.query import ENTITIES, RELATIONSHIPS, visible_clause

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from kgraph.db.pgvector import VectorIndex as PgVectorIndex

# Items of the same type at or above this cosine are the same knowledge said differently.
NEAR_DUPLICATE_COSINE = 0.95
EMBED_BATCH_SIZE = 64


# The last matrix loaded, kept for the next query of this process while the database is
# unchanged (see kgraph.db.sqlite.change_token). When anything was written since — in a
# long-lived process (the MCP server) that is mostly rows other than vectors: session
# records, graph query logs — the vector epoch (migration 0004: triggers count the writes
# that can change the matrix) decides whether it still holds. On PostgreSQL, which has no
# cheap change counter, the epoch alone is the token, read in the scan's own snapshot
# (reads are REPEATABLE READ there). Nothing is cached on disk.
VECTOR_CACHE_MAX_BYTES = 256 * 1024 * 1024
VECTOR_SCAN_MMAP_BYTES = 1024 * 1024 * 1024


@dataclass
class _Cached:
    token: Any
    ids: list[str]
    matrix: Any
    epoch: int


_cache: dict[tuple[Any, ...], _Cached] = {}


def _epoch(conn: Connection) -> int:
    from kgraph.db.models import VectorEpoch, table_of

    epoch = conn.scalar(
        select(table_of(VectorEpoch).c.epoch).where(table_of(VectorEpoch).c.id == 1)
    )
    return int(epoch or 0)


def _conditions(
    model: str, dim: int, types: Sequence[str], include_superseded: bool
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [
        # Expressions rather than bare columns keep SQLite off the embedding_model and type
        # indexes: when most rows match, one sequential table scan is ~4x faster than
        # an index lookup per row.
        ENTITIES.c.embedding_model.concat("") == model,
        ENTITIES.c.type.concat("").in_(list(types)),
        ENTITIES.c.embedding_dim == dim,
    ]
    if not include_superseded:
        conditions.append(ENTITIES.c.hidden_at.is_(None))
    return conditions


def _visible_rows(
    conn: Connection, columns: Sequence[Any], conditions: Sequence[ColumnElement[bool]],
    include_superseded: bool,
) -> list[tuple[Any, ...]]:  # fmt: skip
    from kgraph.db.sqlite import fetch_raw

    rows = fetch_raw(conn, select(*columns).where(*conditions))
    if not include_superseded and rows:
        superseded = set(
            conn.scalars(select(RELATIONSHIPS.c.to_id).where(RELATIONSHIPS.c.type == "SUPERSEDES"))
        )
        if superseded:
            rows = [r for r in rows if r[0] not in superseded]
    return rows


def _scan(
    conn: Connection, model: str, dim: int, types: Sequence[str], include_superseded: bool
) -> tuple[list[str], NDArray[np.float32]]:
    import numpy as np

    from kgraph.db.sqlite import use_mmap

    if conn.dialect.name == "sqlite":
        use_mmap(conn, VECTOR_SCAN_MMAP_BYTES)
    conditions = _conditions(model, dim, types, include_superseded)
    columns = (ENTITIES.c.id, ENTITIES.c.embedding)
    rows = _visible_rows(conn, columns, conditions, include_superseded)
    matrix = np.empty((len(rows), dim), dtype=np.float32)
    if not rows:
        return [], matrix
    width = dim * 4
    buffer = memoryview(matrix.data).cast("B")
    for n, (_id, blob) in enumerate(rows):
        buffer[n * width : (n + 1) * width] = blob
    return [r[0] for r in rows], matrix


def load_matrix(
    conn: Connection,
    model: str,
    dim: int,
    *,
    types: Sequence[str] = KNOWLEDGE_TYPES,
    include_superseded: bool = False,
    allowed: Collection[str] | None = None,
) -> tuple[list[str], NDArray[np.float32]]:
    """Ids and an (n, dim) float32 matrix of the visible items' vectors of ``model``.

    ``allowed`` narrows the items further (e.g. to a file's items). The matrix may be
    shared with the in-process cache: treat it as read-only.
    """
    from kgraph.db.sqlite import change_token

    where = f"{conn.engine.url}#{conn.dialect.default_schema_name}"
    key = (where, model, dim, tuple(types), include_superseded)
    sqlite = conn.dialect.name == "sqlite"
    token = change_token(conn) if sqlite else ("epoch", _epoch(conn))
    cached = _cache.get(key)
    epoch: int | None = None if sqlite else token[1]
    if sqlite and cached is not None and cached.token != token:
        epoch = _epoch(conn)
        if epoch == cached.epoch:
            cached.token = token  # other rows changed; the vectors did not
    if cached is not None and cached.token == token:
        ids, matrix = cached.ids, cached.matrix
    else:
        # The epoch is read in the scan's own read transaction: the snapshot it describes.
        if epoch is None:
            epoch = _epoch(conn)
        ids, matrix = _scan(conn, model, dim, types, include_superseded)
        _cache.clear()
        if matrix.nbytes <= VECTOR_CACHE_MAX_BYTES:
            _cache[key] = _Cached(token, ids, matrix, epoch)
    if allowed is None or not ids:
        return ids, matrix
    keep = [n for n, entity_id in enumerate(ids) if entity_id in allowed]
    return [ids[n] for n in keep], matrix[keep]


def top_k(
    ids: Sequence[str], matrix: NDArray[np.float32], vector: NDArray[np.float32], k: int
) -> list[tuple[str, float]]:
    """The ``k`` ids most similar to ``vector`` (cosine), best first; equal scores in id
    order (so the server's candidates and the whole matrix rank a tie alike)."""
    import numpy as np

    if not ids or k <= 0:
        return []
    scores = matrix @ np.asarray(vector, dtype=np.float32)
    k = min(k, len(ids))
    best = np.argpartition(-scores, k - 1)[:k]
    ordered = sorted(best.tolist(), key=lambda i: (-float(scores[i]), ids[i]))
    return [(ids[i], float(scores[i])) for i in ordered]


def _candidates(
    conn: Connection,
    index: PgVectorIndex,
    vector: NDArray[np.float32],
    k: int,
    types: Sequence[str],
    include_superseded: bool,
    allowed: Collection[str] | None,
) -> tuple[list[str], NDArray[np.float32]]:
    """The server's pick: with ``allowed`` (a file's or area's items, few) every one of
    them, exactly; else the ``k`` nearest by the HNSW index."""
    import numpy as np

    from kgraph.db.pgvector import distance_order, predicate, prepare_search

    statement = select(ENTITIES.c.id, ENTITIES.c.embedding).where(
        text(predicate(index.model, index.dim)),
        ENTITIES.c.type.in_(list(types)),
        visible_clause(include_superseded),
    )
    if allowed is not None:
        statement = statement.where(
            text("entities.id = ANY(:kgraph_allowed)").bindparams(kgraph_allowed=list(allowed))
        )
    else:
        prepare_search(conn, index, k)
        statement = statement.order_by(distance_order(index, vector)).limit(k)
    rows = conn.execute(statement).all()
    matrix = np.empty((len(rows), index.dim), dtype=np.float32)
    for n, row in enumerate(rows):
        matrix[n] = np.frombuffer(row[1], dtype=np.float32)
    return [r[0] for r in rows], matrix


def ranked(
    conn: Connection,
    vector: NDArray[np.float32],
    model: str,
    k: int,
    *,
    types: Sequence[str] = KNOWLEDGE_TYPES,
    include_superseded: bool = False,
    allowed: Collection[str] | None = None,
) -> list[tuple[str, float]]:
    """The ``k`` visible items of ``types`` whose ``model`` vectors are nearest ``vector``
    (cosine), best first: numpy over :func:`load_matrix`, or on a server with a pgvector
    index of ``model``, the server's candidates scored the same way."""
    dim = int(vector.shape[-1])
    index = None
    if conn.dialect.name == "postgresql":
        from kgraph.db.pgvector import ready_index

        index = ready_index(conn, model, dim)
    if index is not None:
        ids, matrix = _candidates(conn, index, vector, k, types, include_superseded, allowed)
    else:
        ids, matrix = load_matrix(
            conn, model, dim, types=types, include_superseded=include_superseded, allowed=allowed
        )
    return top_k(ids, matrix, vector, k)


def nearest(
    db: Database,
    vector: NDArray[np.float32],
    model: str,
    *,
    types: Sequence[str] = KNOWLEDGE_TYPES,
    limit: int = 10,
    min_score: float = -1.0,
) -> list[tuple[str, float]]:
    """Visible items of ``types`` whose ``model`` vectors are nearest ``vector``."""

    def read(conn: Connection) -> list[tuple[str, float]]:
        return ranked(conn, vector, model, limit, types=types)

    return [(i, s) for i, s in db.read(read) if s >= min_score]


def find_near_duplicate(
    db: Database, vector: NDArray[np.float32], model: str, type_: str
) -> str | None:
    """The id of a visible ``type_`` item with cosine >= NEAR_DUPLICATE_COSINE, if any."""
    hits = nearest(db, vector, model, types=(type_,), limit=1, min_score=NEAR_DUPLICATE_COSINE)
    return hits[0][0] if hits else None


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


def has_vectors(db: Database, model: str) -> bool:
    """True when at least one visible knowledge item has a ``model`` vector (cheap)."""

    def read(conn: Connection) -> bool:
        return (
            conn.scalar(
                select(ENTITIES.c.id)
                .where(ENTITIES.c.embedding_model == model, ENTITIES.c.type.in_(KNOWLEDGE_TYPES))
                .limit(1)
            )
            is not None
        )

    return db.read(read)


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
    from kgraph.db.pgvector import ensure_index

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
        all_ids, matrix = _scan(conn, model, dim, (type_,), False)
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
