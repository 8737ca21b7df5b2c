"""pgvector on a PostgreSQL server: an HNSW index over the stored vectors, found at run time.

When the server offers the ``vector`` extension (``pg_available_extensions``) and kgraph's
role may create it (or someone already has), nearest-neighbour queries run on the server:
``ORDER BY <vector> <=> :query LIMIT k`` walks an HNSW index (cosine) instead of shipping
every vector to the client for a numpy scan. Without the extension nothing here is used and
nothing in the schema changes.

The vectors stay where they are — float32 bytes in ``entities.embedding``, the single
source of truth on both backends. The index is an *expression* index over
``kgraph_vector_of(embedding)::vector(dim)``, a SQL function decoding the bytes (IEEE
binary32, little-endian, as kgraph.embeddings.pack writes them) into a pgvector value, with
a partial predicate on the model, the dimension and the byte length. So:

- no column to keep in step: every writer (the store, the backfill, an import, a merge)
  maintains the index by writing the bytes as it does today, in the same transaction;
- one index per (model, dimension), since pgvector indexes only vectors of one declared
  dimension; a re-embed with another model gets its own index and the old model's, left
  without rows, is dropped;
- rows whose bytes decode to no valid vector (NaN, infinity) are left out of the index
  (the function returns NULL), never failing the write.

Why run-time DDL and no Alembic migration: the dimension is known only once a model has
embedded something, the extension may be installed (or its privilege granted) long after
the project's schema was migrated, and a server without it must keep the exact schema of
today. The DDL runs outside any transaction (``CREATE INDEX CONCURRENTLY``: writers of the
project are never blocked while the graph is built) under the project's "pgvector" session
lock, from ``ensure_index`` — called by the vector backfill. A build that failed half way
leaves an invalid index, which readers ignore and the next ``ensure_index`` rebuilds.

The extension goes in the schema ``kgraph_extensions`` when kgraph creates it; an
administrator may instead ``CREATE EXTENSION vector`` in any schema (kgraph names its
objects with that schema, since a project's search_path is its own schema only).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import TextClause, text
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from kgraph.db.core import Database

log = logging.getLogger(__name__)

EXTENSION = "vector"
EXTENSION_SCHEMA = "kgraph_extensions"
FUNCTION = "kgraph_vector_of"
INDEX_PREFIX = "entities_hnsw_"
# pgvector indexes at most 2,000 dimensions of type vector.
MAX_INDEXED_DIM = 2000
# Candidates the HNSW search keeps (pgvector's default is 40): at least the k asked for,
# and enough that the top 100 match an exact scan on real embeddings (scripts/bench_postgres.py
# measures the recall beside the timings).
EF_SEARCH = 400
# pgvector >= 0.8: with a filter (type, hidden, superseded) the scan goes on until k rows
# pass it, in exact distance order, instead of returning fewer.
ITERATIVE_SCAN = "strict_order"

# Decodes little-endian float32 bytes with integer and float8 arithmetic only (PostgreSQL
# has no cast from bytes to float4); exact for every finite value, subnormals included.
# (PostgreSQL gives | and << the same precedence, left to right: hence the parentheses.)
# IMMUTABLE (an index expression must be) and inlinable: one SQL statement, no SET clause.
_FUNCTION_SQL = """
CREATE FUNCTION {function}(data bytea) RETURNS {ext}.vector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $body$
SELECT CASE WHEN bool_or(e = 255) THEN NULL ELSE
  array_agg(
    (1 - 2 * ((w >> 31) & 1))
    * CASE WHEN e = 0 THEN m * 2.0::float8 ^ -149
           ELSE (8388608 + m) * 2.0::float8 ^ (e - 150) END
    ORDER BY i)::real[]::{ext}.vector END
FROM (
  SELECT i, w, (w >> 23) & 255 AS e, w & 8388607 AS m
  FROM (
    SELECT i, get_byte(data, 4 * i)::int8
            | (get_byte(data, 4 * i + 1)::int8 << 8)
            | (get_byte(data, 4 * i + 2)::int8 << 16)
            | (get_byte(data, 4 * i + 3)::int8 << 24) AS w
    FROM generate_series(0, length(data) / 4 - 1) AS i
  ) AS words
) AS parts
$body$
"""


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


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def predicate(model: str, dim: int) -> str:
    """The index's partial predicate. Queries repeat it literally (not as bound parameters)
    so the planner can prove the index applies."""
    return (
        f"entities.embedding_model = {_quote(model)} AND entities.embedding_dim = {int(dim)} "
        f"AND length(entities.embedding) = {4 * int(dim)}"
    )


def _expression(schema: str, dim: int) -> str:
    return f"{FUNCTION}(entities.embedding)::{_ident(schema)}.vector({int(dim)})"


def distance_order(index: VectorIndex, vector: Any) -> TextClause:
    """ORDER BY cosine distance to ``vector``, as the index orders."""
    literal = "[" + ",".join(repr(float(x)) for x in vector) + "]"
    ext = _ident(index.schema)
    return text(
        f"{_expression(index.schema, index.dim)} OPERATOR({ext}.<=>) "
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
    """Within a read transaction: the HNSW search settings for a top-``k`` query."""
    conn.execute(
        text("SELECT set_config('hnsw.ef_search', :ef, true)"),
        {"ef": str(max(EF_SEARCH, k))},
    )
    if index.version >= (0, 8):
        conn.execute(
            text("SELECT set_config('hnsw.iterative_scan', :mode, true)"), {"mode": ITERATIVE_SCAN}
        )


def _extension_schema(conn: Connection) -> str | None:
    found = conn.scalar(
        text(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = :ext"
        ),
        {"ext": EXTENSION},
    )
    return None if found is None else str(found)


def _create_extension(conn: Connection) -> str | None:
    """The extension's schema, creating it when the server offers it and the role may."""
    schema = _extension_schema(conn)
    if schema is not None:
        return schema
    offered = conn.scalar(
        text("SELECT 1 FROM pg_available_extensions WHERE name = :ext"), {"ext": EXTENSION}
    )
    if offered is None:
        return None
    try:  # the connection is in autocommit mode: each statement is its own transaction
        conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {_ident(EXTENSION_SCHEMA)}"))
        conn.execute(
            text(f"CREATE EXTENSION IF NOT EXISTS {EXTENSION} SCHEMA {_ident(EXTENSION_SCHEMA)}")
        )
    except Exception as exc:  # no privilege, or another process created it meanwhile
        log.info("pgvector: cannot create the extension: %s", str(exc).splitlines()[0])
    return _extension_schema(conn)


def _kgraph_indexes(conn: Connection) -> list[tuple[str, bool, str | None]]:
    rows = conn.execute(
        text(
            "SELECT c.relname, i.indisvalid, obj_description(c.oid, 'pg_class') "
            "FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
            "WHERE c.relname LIKE :prefix AND c.relnamespace = "
            "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())"
        ),
        {"prefix": INDEX_PREFIX + "%"},
    ).all()
    return [(str(r[0]), bool(r[1]), None if r[2] is None else str(r[2])) for r in rows]


def _build(conn: Connection, schema: str, model: str, dim: int) -> None:
    name = index_name(model, dim)
    if conn.scalar(text(f"SELECT to_regprocedure('{FUNCTION}(bytea)')")) is None:
        conn.execute(text(_FUNCTION_SQL.format(function=FUNCTION, ext=_ident(schema))))
    indexes = {n: (valid, comment) for n, valid, comment in _kgraph_indexes(conn)}
    if name in indexes and indexes[name][0]:
        return
    if name in indexes:  # a build that failed half way
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {_ident(name)}"))
    conn.execute(
        text(
            f"CREATE INDEX CONCURRENTLY {_ident(name)} ON entities USING hnsw "
            f"(({_expression(schema, dim)}) {_ident(schema)}.vector_cosine_ops) "
            f"WHERE {predicate(model, dim)}"
        )
    )
    comment = _quote(f"{model}\t{dim}")
    conn.execute(text(f"COMMENT ON INDEX {_ident(name)} IS {comment}"))


def _drop_unused(conn: Connection, keep: str) -> None:
    """Drop kgraph's indexes of models no item has vectors of any more."""
    for name, _valid, comment in _kgraph_indexes(conn):
        if name == keep:
            continue
        model, _, dim = (comment or "").rpartition("\t")
        if model and dim.isdigit():
            used = conn.scalar(
                text(f"SELECT 1 FROM entities WHERE {predicate(model, int(dim))} LIMIT 1")
            )
            if used is not None:
                continue
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {_ident(name)}"))


def ensure_index(db: Database, model: str, dim: int) -> bool:
    """On PostgreSQL with pgvector: build the HNSW index of ``model``/``dim`` if missing
    (and drop those of models no longer used); True when the index is ready afterwards.

    False, changing nothing, on SQLite, a read-only database, a server without the
    extension or a role that may not create it. A failure is logged, never raised: the
    searches then scan with numpy as before.
    """
    if db.dialect != "postgresql" or db.read_only or not 0 < dim <= MAX_INDEXED_DIM:
        return False
    try:
        with db.exclusive("pgvector"):
            conn = db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            with conn:
                schema = _create_extension(conn)
                if schema is None:
                    return False
                _build(conn, schema, model, dim)
                _drop_unused(conn, index_name(model, dim))
                return ready_index(conn, model, dim) is not None
    except Exception as exc:
        log.warning("pgvector: could not build the vector index: %s", str(exc).splitlines()[0])
        return False
