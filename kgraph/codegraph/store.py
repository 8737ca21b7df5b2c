"""Reading and writing the code graph tables with SQLAlchemy Core (no ORM instances, see
``kgraph/db/models/base.py``). Every function runs on the Connection of a caller's short
``db.read``/``db.write`` transaction; bulk rows go through executemany.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    Index,
    bindparam,
    delete,
    exists,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.schema import CreateIndex, DropIndex

from kgraph.codegraph.build import EdgeRow, EntityRow, FileRows
from kgraph.codegraph.summary import Summary
from kgraph.codegraph.summary_codec import decode_summary
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphFile, GraphRelationship, GraphSummary, table_of

FILES = table_of(GraphFile)
SUMMARIES = table_of(GraphSummary)
ENTITIES = table_of(GraphEntity)
EDGES = table_of(GraphRelationship)

_CHUNK = 500


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def file_states(conn: Connection) -> dict[str, tuple[str, bool]]:
    """Every parsed file -> (content hash, stale)."""
    rows = conn.execute(select(FILES.c.path, FILES.c.content_hash, FILES.c.stale)).all()
    return {path: (content, stale) for path, content, stale in rows}


def deps_of(conn: Connection, paths: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The stored deps of the given files, or of every file (None): what their resolution
    read (``files``, ``missing``, ``pulled``) and their call-site keys (``sites``); files
    not resolved since they were parsed are left out."""
    statement = select(FILES.c.path, FILES.c.deps, FILES.c.missing, FILES.c.pulled, FILES.c.sites)
    chunks = (
        [statement]
        if paths is None
        else [statement.where(FILES.c.path.in_(chunk)) for chunk in _chunks(list(paths))]
    )
    return {
        path: {"files": deps["files"], "missing": missing, "pulled": pulled, "sites": sites}
        for query in chunks
        for path, deps, missing, pulled, sites in conn.execute(query)
        if deps and missing is not None
    }


def load_summaries(conn: Connection, paths: Sequence[str]) -> dict[str, Summary]:
    """Stored summaries, decoded (the column's text: the records are rebuilt as typed
    tuples by :func:`~kgraph.codegraph.summary_codec.decode_summary`, scope by scope as
    they are first read)."""
    found: dict[str, Summary] = {}
    for chunk in _chunks(list(paths)):
        where = SUMMARIES.c.path.in_(chunk)
        rows = conn.execute(select(SUMMARIES.c.path, SUMMARIES.c.summary).where(where)).all()
        found.update(
            {path: decode_summary(raw, lazy=True) for path, raw in rows if raw is not None}
        )
    return found


# Above this many changed files, every file's whole deps are read: one JSON extraction
# per changed file and row costs more than decoding the rows once.
_DEPS_OF_CHANGED_MAX = 20
# Paths a JSON path names verbatim in both dialects: SQLite matches neither a quote nor an
# escaped (non-ASCII) key, PostgreSQL's path array splits on commas and spaces.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./@+-]+")


def deps_on(conn: Connection, changed: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Every resolved file's deps as far as an incremental parse tests them: what it read of
    the ``changed`` files (``files``, those only, extracted by the database: the whole deps
    of sqlalchemy's files are 3.2 MB of JSON, and decoding them was a fifth of a 2-file
    interface edit), and the small columns: its ``missing`` imports, the call-site keys it
    ``pulled`` and its own ``sites``."""
    if len(changed) > _DEPS_OF_CHANGED_MAX or not all(map(_PLAIN_PATH.fullmatch, changed)):
        return deps_of(conn)
    read = [FILES.c.deps[("files", path)] for path in changed]
    columns = [FILES.c.path, FILES.c.missing, FILES.c.pulled, FILES.c.sites, *read]
    found: dict[str, dict[str, Any]] = {}
    for path, missing, pulled, sites, *names in conn.execute(select(*columns)):
        if missing is None:  # not resolved since it was parsed
            continue
        files = {changed_path: n for changed_path, n in zip(changed, names, strict=True) if n}
        found[path] = {"files": files, "missing": missing, "pulled": pulled, "sites": sites}
    return found


def failed_files(conn: Connection) -> list[dict[str, str]]:
    """The files whose last analysis failed, by path: ``{"path", "stage", "reason"}``
    (see :func:`~kgraph.codegraph.build.resolve_file`). The database extracts the two keys
    from ``deps``: decoding every file's deps to find a few would read megabytes."""
    reason = FILES.c.deps["failed"].as_string()
    stage = FILES.c.deps["failed_stage"].as_string()
    rows = conn.execute(
        select(FILES.c.path, stage, reason).where(reason.is_not(None)).order_by(FILES.c.path)
    )
    return [{"path": path, "stage": stage or "", "reason": why} for path, stage, why in rows]


def site_keys(conn: Connection) -> dict[str, list[str]]:
    """File -> the keys its call sites with arguments are indexed under, as its last
    resolution stored them (files not resolved since they were parsed are left out)."""
    rows = conn.execute(select(FILES.c.path, FILES.c.sites).where(FILES.c.sites.is_not(None)))
    return {path: sites or [] for path, sites in rows}


def save_parsed(conn: Connection, parsed: Sequence[dict[str, Any]], when: datetime) -> None:
    """Insert or replace the rows of freshly parsed files (marked stale, not resolved yet):
    ``graph_files`` and ``graph_summaries``.

    ``summary`` arrives encoded (workers do it:
    :func:`~kgraph.codegraph.summary_codec.encode_summary`).
    """
    delete_files(conn, [row["path"] for row in parsed], graph=False)
    if not parsed:
        return
    files = [{**row, "parsed_at": when, "stale": True} for row in parsed]
    for row in files:
        del row["summary"]
    conn.execute(insert(FILES), files)
    conn.execute(
        insert(SUMMARIES), [{"path": row["path"], "summary": row["summary"]} for row in parsed]
    )


def delete_files(conn: Connection, paths: Sequence[str], graph: bool = True) -> None:
    """Remove files' rows and summaries, and (``graph``) their entities and the edges their
    parse produced."""
    for chunk in _chunks(list(paths)):
        conn.execute(delete(FILES).where(FILES.c.path.in_(chunk)))
        conn.execute(delete(SUMMARIES).where(SUMMARIES.c.path.in_(chunk)))
        if graph:
            conn.execute(delete(ENTITIES).where(ENTITIES.c.file_path.in_(chunk)))
            conn.execute(delete(EDGES).where(EDGES.c.file_path.in_(chunk)))


def mark_stale(conn: Connection, paths: Sequence[str]) -> None:
    for chunk in _chunks(list(paths)):
        conn.execute(update(FILES).where(FILES.c.path.in_(chunk)).values(stale=True))


def set_hashes(conn: Connection, hashes: dict[str, str]) -> None:
    """Store new content hashes of unchanged files (path -> hash): those a release before
    hashed differently (kgraph.codegraph.listing.legacy_hash)."""
    if hashes:
        conn.execute(
            update(FILES).where(FILES.c.path == bindparam("p")).values(content_hash=bindparam("h")),
            [{"p": path, "h": digest} for path, digest in sorted(hashes.items())],
        )


_ENTITY_SQL = (
    "INSERT INTO graph_entities (id, type, name, qualified_name, file_path, line_number, "
    "end_line, exported, package, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_EDGE_SQL = (
    "INSERT INTO graph_relationships (from_entity, to_entity, type, file_path, to_file, "
    "line_number, confidence, resolution, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _insert_many(conn: Connection, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` with ``sql`` (``INSERT INTO t (columns) VALUES (?, ...)``): the
    driver's executemany on SQLite, ``COPY ... FROM STDIN`` on PostgreSQL (several times
    faster than one INSERT a row, even pipelined)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(sql, rows)
        return
    head = sql.split(" VALUES ", 1)[0].replace("INSERT INTO ", "COPY ", 1)
    raw = conn.connection.driver_connection
    assert raw is not None
    with raw.cursor() as cursor, cursor.copy(f"{head} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def graph_is_empty(conn: Connection) -> bool:
    """True when there are no entities and no edges (a cold parse)."""
    return not conn.execute(
        select(exists(select(ENTITIES.c.id)) | exists(select(EDGES.c.id)))
    ).scalar()


def _lookup_indexes() -> list[Index]:
    """The entity and edge indexes that only serve lookups (not the unique ones)."""
    return [
        index
        for table in (ENTITIES, EDGES)
        for index in sorted(table.indexes, key=lambda index: str(index.name))
        if not index.unique
    ]


def drop_lookup_indexes(conn: Connection) -> None:
    """Before a bulk load into empty tables: one sorted index build at the end costs
    about a third of maintaining the indexes row by row."""
    for index in _lookup_indexes():
        conn.execute(DropIndex(index, if_exists=True))


def refresh_statistics(conn: Connection) -> None:
    """After a bulk load on PostgreSQL: fresh planner statistics of the graph tables, so the
    first queries do not run on a plan made for empty tables (autovacuum would get there,
    a minute later). SQLite plans without them."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("ANALYZE graph_files, graph_entities, graph_relationships")


def missing_lookup_indexes(conn: Connection) -> list[Index]:
    """The lookup indexes the database lacks (a bulk load in progress, or one that died)."""
    inspector = inspect(conn)
    present = {
        index["name"] for table in (ENTITIES, EDGES) for index in inspector.get_indexes(table.name)
    }
    return [index for index in _lookup_indexes() if str(index.name) not in present]


def ensure_lookup_indexes(conn: Connection) -> None:
    """Create the missing lookup indexes (after a bulk load, or one a crash interrupted)."""
    for index in missing_lookup_indexes(conn):
        conn.execute(CreateIndex(index))


class RowsToWrite(NamedTuple):
    """A batch of resolved files' rows, ready for the driver (:func:`rows_to_write`)."""

    paths: list[str]
    entities: list[EntityRow]
    edges: list[EdgeRow]
    files: list[dict[str, Any]]  # the ``graph_files`` update's parameters


def rows_to_write(results: dict[str, FileRows]) -> RowsToWrite:
    """The rows of ``results`` as the driver takes them. Built before the write transaction
    (:func:`write_rows`): two resolve workers share one write lock, and building the rows
    inside it was a quarter of the time it was held."""
    # Sorted by id, the primary key's pages fill in order: about a third less insert time
    # (a plain tuple sort: ids are unique, so no comparison reaches a None). Edges come
    # grouped by file already, and their other indexes are keyed by target: no order helps.
    entities = sorted(entity for rows in results.values() for entity in rows.entities)
    edges = [edge.row() for rows in results.values() for edge in rows.edges.values()]
    files = [
        {"p": path, "d": rows.deps, "m": rows.missing, "u": rows.pulled, "s": rows.sites}
        for path, rows in results.items()
    ]
    return RowsToWrite(list(results), entities, edges, files)


def write_rows(db: Database, results: dict[str, FileRows], fresh: bool = False) -> tuple[int, int]:
    """Replace the rows of the files in ``results`` (:func:`replace_rows`), in one write."""
    rows = rows_to_write(results)
    return db.write(lambda conn: replace_rows(conn, rows, fresh))


def replace_rows(conn: Connection, rows: RowsToWrite, fresh: bool = False) -> tuple[int, int]:
    """Replace the entities and edges of the given files; returns (entities, edges) written.

    ``fresh``: the files have no rows yet (a bulk load), so there is nothing to delete.
    Rows go through the driver's executemany as tuples: Core's per-row parameter
    processing costs ~15 us a row, which is most of a cold parse's write time.
    """
    for chunk in _chunks(rows.paths) if not fresh else ():
        conn.execute(delete(ENTITIES).where(ENTITIES.c.file_path.in_(chunk)))
        conn.execute(delete(EDGES).where(EDGES.c.file_path.in_(chunk)))
    if rows.entities:
        _insert_many(conn, _ENTITY_SQL, rows.entities)
    if rows.edges:
        _insert_many(conn, _EDGE_SQL, rows.edges)
    if rows.files:
        conn.execute(
            update(FILES)
            .where(FILES.c.path == bindparam("p"))
            .values(
                deps=bindparam("d"),
                missing=bindparam("m"),
                pulled=bindparam("u"),
                sites=bindparam("s"),
                stale=False,
            ),
            rows.files,
        )
    return len(rows.entities), len(rows.edges)
