"""``graph summary``: counts of files, entities and edges, and the files whose analysis
failed. Not on a one-off command's fast path (it reads ``deps`` JSON through the
dialect's JSON operators), so it stays on SQLAlchemy Core."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from kgraph.codegraph.records import recorded
from kgraph.codegraph.store import failed_files
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphFile, GraphRelationship, table_of

__all__ = ["graph_summary"]

ENTITIES = table_of(GraphEntity)
EDGES = table_of(GraphRelationship)
FILES = table_of(GraphFile)


def graph_summary(db: Database, *, record: bool = True) -> dict[str, Any]:
    """Counts: files per language, entities per type, edges per type, how calls resolved;
    and the files whose analysis failed, with why (``failed_files``)."""
    with recorded(db, "summary", {}, record) as done:

        def query(conn: Connection) -> dict[str, Any]:
            def counts(statement: Any) -> dict[str, int]:
                return {str(k): int(v) for k, v in conn.execute(statement).all()}

            files = counts(select(FILES.c.language, func.count()).group_by(FILES.c.language))
            return {
                "files": sum(files.values()),
                "languages": files,
                "files_with_errors": conn.execute(
                    select(func.count()).where(FILES.c.parse_errors > 0)
                ).scalar_one(),
                "stale_files": conn.execute(
                    select(func.count()).where(FILES.c.stale.is_(True))
                ).scalar_one(),
                "failed_files": failed_files(conn),
                "last_parsed_at": conn.execute(select(func.max(FILES.c.parsed_at))).scalar(),
                "entities": counts(select(ENTITIES.c.type, func.count()).group_by(ENTITIES.c.type)),
                "relationships": counts(select(EDGES.c.type, func.count()).group_by(EDGES.c.type)),
                "call_resolution": counts(
                    select(EDGES.c.resolution, func.count())
                    .where(EDGES.c.type == "calls")
                    .group_by(EDGES.c.resolution)
                ),
            }

        result = db.read(query)
        done(result["files"])
    return result
