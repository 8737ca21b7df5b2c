"""pgvector on a PostgreSQL server: an HNSW index over the stored vectors, found at run time.

When the server offers the ``vector`` extension (``pg_available_extensions``) and kgraph's
role may create it (or someone already has), nearest-neighbour queries run on the server:
``ORDER BY <vector> <=> :query LIMIT k`` walks an HNSW index (cosine) instead of shipping
every vector to the client for a numpy scan. Without the extension nothing here is used and
nothing in the schema changes.

The float32 bytes in ``entities.embedding`` stay the single source of truth on both
backends. Beside them the server keeps a pgvector copy, ``entities.embedding_vector``
(type ``vector``, any dimension), that kgraph never writes itself: a ``BEFORE INSERT OR
UPDATE OF embedding`` trigger fills it from the bytes with ``kgraph_vector_of``, a
function decoding IEEE binary32 little-endian (kgraph.embeddings.pack) into a pgvector
value. So every writer (the store, the backfill, an import, a merge) keeps the copy in step
in its own transaction, and the models, the numpy path and SQLite know nothing of it.
The index is a partial HNSW index over ``embedding_vector::vector(dim)`` per (model,
dimension) — pgvector indexes vectors of one declared dimension only — so a re-embed with
another model gets its own index, and the old model's, left without rows, is dropped.
Rows whose bytes decode to no valid vector (NaN, infinity) get NULL: never indexed, never
a failed write.

(A copy rather than an expression index over ``kgraph_vector_of(embedding)``: PostgreSQL
evaluates the ORDER BY expression again for every row an index scan returns, and the
decoding of 384 values costs ~0.2 ms a row, more on a busy server: 20+ ms a query.)

Why run-time DDL and no Alembic migration: the column's type exists only with the
extension, which may be installed (or its privilege granted) long after the project's
schema was migrated; the dimension is known only once a model has embedded something; and
a server without pgvector must keep today's schema exactly. ``ensure_index`` (called by the
vector backfill and, on a server, by the capture worker) holds the project's "pgvector"
session lock and adds the column and trigger in one short write transaction (a metadata
change, no table rewrite), fills the existing rows in short batches, then builds the index
with ``CREATE INDEX CONCURRENTLY`` (writers are never blocked while the graph is built). A
build that failed half way leaves an invalid index: readers ignore it, the next
``ensure_index`` rebuilds it. Until an index is valid, searches scan with numpy.

The extension goes in the schema ``kgraph_extensions`` when kgraph creates it; an
administrator may instead ``CREATE EXTENSION vector`` in any schema (kgraph names its
objects with that schema, since a project's search_path is its own schema only).
"""

from __future__ import annotations

import hashlib
import logging
import math
import struct
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
FILL_FUNCTION = "kgraph_vector_fill"
TRIGGER = "kgraph_vector_fill_entities"
COLUMN = "embedding_vector"
FILL_BATCH = 2000
INDEX_PREFIX = "entities_hnsw_"
# pgvector indexes at most 2,000 dimensions of type vector.
MAX_INDEXED_DIM = 2000
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

# Decodes little-endian float32 bytes with integer and float8 arithmetic only (PostgreSQL
# has no cast from bytes to float4); exact for every finite value, subnormals included;
# NULL when any value is NaN or infinite. PL/pgSQL: ~0.2 ms for 384 values, half the time
# of the same in one SQL statement (generate_series + array_agg).
# (PostgreSQL gives | and << the same precedence, left to right: hence the parentheses.)
_FUNCTION_SQL = """
CREATE FUNCTION {function}(data bytea) RETURNS {ext}.vector
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $body$
DECLARE
  result real[] := '{{}}';
  w int8;
  e int;
  m int8;
BEGIN
  IF length(data) = 0 OR length(data) % 4 <> 0 OR length(data) > 64000 THEN
    RETURN NULL;  -- no vector pgvector can hold (1 to 16,000 values)
  END IF;
  FOR i IN 0 .. length(data) / 4 - 1 LOOP
    w := get_byte(data, 4 * i)::int8
         | (get_byte(data, 4 * i + 1)::int8 << 8)
         | (get_byte(data, 4 * i + 2)::int8 << 16)
         | (get_byte(data, 4 * i + 3)::int8 << 24);
    e := (w >> 23) & 255;
    m := w & 8388607;
    IF e = 255 THEN
      RETURN NULL;
    END IF;
    result[i + 1] := (1 - 2 * ((w >> 31) & 1))
      * CASE WHEN e = 0 THEN m * 2.0::float8 ^ -149
             ELSE (8388608 + m) * 2.0::float8 ^ (e - 150) END;
  END LOOP;
  RETURN result::{ext}.vector;
END $body$
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
    """A string literal for a ``text()`` statement (whose ``:name`` would be a parameter)."""
    return "'" + value.replace("'", "''").replace(":", "\\:") + "'"


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
    return f"entities.{COLUMN}::{_ident(schema)}.vector({int(dim)})"


def distance_order(index: VectorIndex, vector: Any) -> TextClause:
    """ORDER BY cosine distance to ``vector``, as the index orders."""
    literal = _literal(vector)
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


_FILL_SQL = """
CREATE OR REPLACE FUNCTION {fill}() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  NEW.{column} := CASE WHEN NEW.embedding IS NULL THEN NULL
                       ELSE {project}.{function}(NEW.embedding) END;
  RETURN NEW;
END $body$
"""


def _has_column(conn: Connection) -> bool:
    return (
        conn.scalar(
            text(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = 'entities' AND column_name = :column"
            ),
            {"column": COLUMN},
        )
        is not None
    )


def _add_column(db: Database, schema: str) -> None:
    """The copy column, its decoding function and trigger: one short write transaction."""

    def write(conn: Connection) -> None:
        if _has_column(conn):
            return
        project = _ident(str(conn.scalar(text("SELECT current_schema()"))))
        if conn.scalar(text(f"SELECT to_regprocedure('{FUNCTION}(bytea)')")) is None:
            conn.execute(text(_FUNCTION_SQL.format(function=FUNCTION, ext=_ident(schema))))
        conn.execute(text(f"ALTER TABLE entities ADD COLUMN {COLUMN} {_ident(schema)}.vector"))
        conn.execute(
            text(
                _FILL_SQL.format(
                    fill=FILL_FUNCTION, column=COLUMN, project=project, function=FUNCTION
                )
            )
        )
        conn.execute(
            text(
                f"CREATE TRIGGER {TRIGGER} BEFORE INSERT OR UPDATE OF embedding ON entities "
                f"FOR EACH ROW EXECUTE FUNCTION {FILL_FUNCTION}()"
            )
        )

    db.write(write)


def _literal(values: Any) -> str:
    """A pgvector text literal of float32 values, exact: the repr of a float32 widened to a
    float is that float, and pgvector's strtof rounds it back to the same float32."""
    return "[" + ",".join(repr(float(x)) for x in values) + "]"


def _fill(db: Database, schema: str) -> None:
    """Copy the vectors of rows written before the trigger existed, in short batches
    (keyset over ids). Decoded here rather than by the trigger's function: several times
    faster.
    Rows whose bytes hold NaN or infinity are left NULL, as the trigger leaves them."""
    last = ""
    while True:

        def write(conn: Connection, after: str = last) -> str | None:
            rows = conn.execute(
                text(
                    f"SELECT id, embedding FROM entities WHERE id > :after "
                    f"AND embedding IS NOT NULL AND {COLUMN} IS NULL ORDER BY id LIMIT {FILL_BATCH}"
                ),
                {"after": after},
            ).all()
            if not rows:
                return None
            ids: list[str] = []
            literals: list[str] = []
            for entity_id, blob in rows:
                data = bytes(blob)
                if not data or len(data) % 4:
                    continue
                values = struct.unpack(f"<{len(data) // 4}f", data)
                if all(math.isfinite(v) for v in values):
                    ids.append(str(entity_id))
                    literals.append(_literal(values))
            if ids:
                conn.execute(
                    text(
                        f"UPDATE entities SET {COLUMN} = "
                        f"CAST(v.literal AS {_ident(schema)}.vector) "
                        "FROM unnest(CAST(:ids AS text[]), CAST(:literals AS text[])) "
                        "AS v(id, literal) WHERE entities.id = v.id"
                    ),
                    {"ids": ids, "literals": literals},
                )
            return str(rows[-1][0])

        found = db.write(write)
        if found is None:
            return
        last = found


def _build(conn: Connection, schema: str, model: str, dim: int) -> None:
    name = index_name(model, dim)
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
                if ready_index(conn, model, dim) is not None:
                    _drop_unused(conn, index_name(model, dim))
                    return True
                _add_column(db, schema)
                _fill(db, schema)
                _build(conn, schema, model, dim)
                _drop_unused(conn, index_name(model, dim))
                return ready_index(conn, model, dim) is not None
    except Exception as exc:
        log.warning("pgvector: could not build the vector index: %s", str(exc).splitlines()[0])
        return False
