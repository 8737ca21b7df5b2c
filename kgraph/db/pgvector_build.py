"""Building the pgvector index on a PostgreSQL server: the extension, the vector copy
column, the trigger that fills it, and the HNSW index (searching it is
:mod:`kgraph.db.pgvector`). Apart from the search because only the vector backfill and the
capture worker build; a search only asks whether an index is ready.

The trigger (``BEFORE INSERT OR UPDATE OF embedding``) fills ``entities.embedding_vector``
from the bytes with ``kgraph_vector_of``, a function decoding IEEE binary32 little-endian
(kgraph.embeddings.pack) into a pgvector value.

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

import logging
import math
import struct
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection

from kgraph.db.pgvector import (
    COLUMN,
    EXTENSION,
    INDEX_PREFIX,
    index_name,
    predicate,
    quote_name,
    quote_string,
    ready_index,
    vector_expression,
    vector_literal,
)

if TYPE_CHECKING:
    from kgraph.db.core import Database

log = logging.getLogger(__name__)

EXTENSION_SCHEMA = "kgraph_extensions"
FUNCTION = "kgraph_vector_of"
FILL_FUNCTION = "kgraph_vector_fill"
TRIGGER = "kgraph_vector_fill_entities"
FILL_BATCH = 2000
# pgvector indexes at most 2,000 dimensions of type vector.
MAX_INDEXED_DIM = 2000

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
        conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {quote_name(EXTENSION_SCHEMA)}"))
        conn.execute(
            text(
                f"CREATE EXTENSION IF NOT EXISTS {EXTENSION} SCHEMA {quote_name(EXTENSION_SCHEMA)}"
            )
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
        project = quote_name(str(conn.scalar(text("SELECT current_schema()"))))
        if conn.scalar(text(f"SELECT to_regprocedure('{FUNCTION}(bytea)')")) is None:
            conn.execute(text(_FUNCTION_SQL.format(function=FUNCTION, ext=quote_name(schema))))
        conn.execute(text(f"ALTER TABLE entities ADD COLUMN {COLUMN} {quote_name(schema)}.vector"))
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
                    literals.append(vector_literal(values))
            if ids:
                conn.execute(
                    text(
                        f"UPDATE entities SET {COLUMN} = "
                        f"CAST(v.literal AS {quote_name(schema)}.vector) "
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
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {quote_name(name)}"))
    conn.execute(
        text(
            f"CREATE INDEX CONCURRENTLY {quote_name(name)} ON entities USING hnsw "
            f"(({vector_expression(schema, dim)}) {quote_name(schema)}.vector_cosine_ops) "
            f"WHERE {predicate(model, dim)}"
        )
    )
    comment = quote_string(f"{model}\t{dim}")
    conn.execute(text(f"COMMENT ON INDEX {quote_name(name)} IS {comment}"))


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
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {quote_name(name)}"))


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
