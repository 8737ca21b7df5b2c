"""Stored vectors: loading them as one matrix, and the nearest neighbours of a query.

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

Writing vectors (the backfill, the server's index, near-duplicate merges) is
:mod:`kgraph.knowledge.backfill`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, select, text
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.knowledge.model import KNOWLEDGE_TYPES
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS, visible_clause

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from kgraph.db.pgvector import VectorIndex as PgVectorIndex

# Items of the same type at or above this cosine are the same knowledge said differently.
NEAR_DUPLICATE_COSINE = 0.95


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


def scan(
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
        ids, matrix = scan(conn, model, dim, types, include_superseded)
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
