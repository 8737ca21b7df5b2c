"""pgvector on a PostgreSQL server: an HNSW index over the stored vectors, found at run time.

When the server offers the ``vector`` extension (``pg_available_extensions``) and kgraph's
role may create it (or someone already has), nearest-neighbour queries run on the server:
``ORDER BY <vector> <=> :query LIMIT k`` walks an HNSW index (cosine) instead of shipping
every vector to the client for a numpy scan. Without the extension nothing here is used and
nothing in the schema changes.

The float32 bytes in ``entities.embedding`` stay the single source of truth on both
backends. Beside them the server keeps a pgvector copy, ``entities.embedding_vector``
(type ``vector``, any dimension), that kgraph never writes itself: a trigger fills it from
the bytes, so every writer (the store, the backfill, an import, a merge) keeps the copy in
step in its own transaction, and the models, the numpy path and SQLite know nothing of it.
The index is a partial HNSW index over ``embedding_vector::vector(dim)`` per (model,
dimension) — pgvector indexes vectors of one declared dimension only — so a re-embed with
another model gets its own index, and the old model's, left without rows, is dropped.
Rows whose bytes decode to no valid vector (NaN, infinity) get NULL: never indexed, never
a failed write.

This module is the searching side: whether a model's index is ready, the search settings,
the ORDER BY a query uses, and the SQL text both sides write the index's expression and
predicate with. Creating the extension, the column, its trigger and the index is
:mod:`kgraph.db.pgvector_build`, which only the vector backfill and the capture worker run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.engine import Connection

EXTENSION = "vector"
COLUMN = "embedding_vector"
INDEX_PREFIX = "entities_hnsw_"
# Candidates the HNSW search keeps (pgvector's default is 40; 1,000 is its maximum). On
# 100,000 items with the bench's hashed-text vectors (scripts/bench_postgres.py), against
# the exact numpy ranking of 24 queries' top 100 (m 16, ef_construction 64):
#   ef_search   200: recall@10 0.92, @100 0.85, 22 ms a query
#               400: recall@10 0.95, @100 0.90, 29 ms
#              1000: recall@10 0.98, @100 0.96, 47 ms   (numpy uncached: ~700 ms)
# The semantic list is the top 100, so the most.
EF_SEARCH = 1000
# pgvector >= 0.8: with a filter (type, hidden, superseded) the scan goes on until k rows
# pass it, in exact distance order, instead of returning fewer.
ITERATIVE_SCAN = "strict_order"


@dataclass(frozen=True)
class VectorIndex:
    """A usable HNSW index of one model's vectors, and where the extension lives."""

    schema: str  # the extension's schema
    version: tuple[int, ...]
    model: str
    dim: int


def index_name(model: str, dim: int) -> str:
    digest = hashlib.sha1(f"{model}\0{dim}".encode()).hexdigest()[:16]
    return f"{INDEX_PREFIX}{digest}"


def quote_string(value: str) -> str:
    """A string literal for a ``text()`` statement (whose ``:name`` would be a parameter)."""
    return "'" + value.replace("'", "''").replace(":", "\\:") + "'"


def quote_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def predicate(model: str, dim: int) -> str:
    """The index's partial predicate. Queries repeat it literally (not as bound parameters)
    so the planner can prove the index applies."""
    return (
        f"entities.embedding_model = {quote_string(model)} AND entities.embedding_dim = {int(dim)} "
        f"AND length(entities.embedding) = {4 * int(dim)}"
    )


def vector_expression(schema: str, dim: int) -> str:
    return f"entities.{COLUMN}::{quote_name(schema)}.vector({int(dim)})"


def vector_literal(values: Any) -> str:
    """A pgvector text literal of float32 values, exact: the repr of a float32 widened to a
    float is that float, and pgvector's strtof rounds it back to the same float32."""
    return "[" + ",".join(repr(float(x)) for x in values) + "]"


def distance_order(index: VectorIndex, vector: Any) -> TextClause:
    """ORDER BY cosine distance to ``vector``, as the index orders."""
    literal = vector_literal(vector)
    ext = quote_name(index.schema)
    return text(
        f"{vector_expression(index.schema, index.dim)} OPERATOR({ext}.<=>) "
        f"CAST(:kgraph_query_vector AS {ext}.vector({int(index.dim)}))"
    ).bindparams(kgraph_query_vector=literal)


def _version(text_version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text_version.split("."):
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def ready_index(conn: Connection, model: str, dim: int) -> VectorIndex | None:
    """The valid HNSW index of ``model``/``dim`` in the project's schema, if there is one
    (one catalog query); None on SQLite, without the extension, or before it is built."""
    if conn.dialect.name != "postgresql":
        return None
    row = conn.execute(
        text(
            "SELECT n.nspname, e.extversion FROM pg_extension e "
            "JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = :ext AND EXISTS ("
            " SELECT 1 FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid"
            " WHERE c.relname = :name AND i.indisvalid AND i.indisready"
            " AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()))"
        ),
        {"ext": EXTENSION, "name": index_name(model, dim)},
    ).first()
    if row is None:
        return None
    return VectorIndex(str(row[0]), _version(str(row[1])), model, dim)


def prepare_search(conn: Connection, index: VectorIndex, k: int) -> None:
    """Within a read transaction: the HNSW search settings for a top-``k`` query (one
    round trip; they end with the transaction)."""
    settings = {"hnsw.ef_search": str(max(EF_SEARCH, k))}
    if index.version >= (0, 8):
        settings["hnsw.iterative_scan"] = ITERATIVE_SCAN
    calls = ", ".join(f"set_config(:name{n}, :value{n}, true)" for n in range(len(settings)))
    params: dict[str, str] = {}
    for n, (name, value) in enumerate(settings.items()):
        params[f"name{n}"], params[f"value{n}"] = name, value
    conn.execute(text(f"SELECT {calls}"), params)
