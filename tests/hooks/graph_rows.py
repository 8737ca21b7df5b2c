"""Writes code-graph rows directly (tests and the benchmark don't need a real parse)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from sqlalchemy import Table, insert

from kgraph.db import Database
from kgraph.db.models.codegraph import GraphEntity, GraphFile, GraphRelationship

FILES = cast(Table, GraphFile.__table__)
EDGES = cast(Table, GraphRelationship.__table__)
ENTITIES = cast(Table, GraphEntity.__table__)


def add_graph(db: Database, files: Sequence[str], imports: Iterable[tuple[str, str]]) -> None:
    """Parsed ``files`` and file-level ``imports`` edges (importer, imported)."""
    edge_rows: list[dict[str, Any]] = [
        {
            "from_entity": f"{source}::<module>",
            "to_entity": f"{target}::<module>",
            "type": "imports",
            "file_path": source,
            "to_file": target,
            "resolution": "import",
        }
        for source, target in imports
    ]

    def op(conn: Any) -> None:
        conn.execute(
            insert(FILES), [{"path": f, "language": "python", "content_hash": "x"} for f in files]
        )
        if edge_rows:
            conn.execute(insert(EDGES), edge_rows)

    db.write(op)


def add_entities(db: Database, rows: Iterable[tuple[str, str, str, str, str]]) -> None:
    """Graph entities: (id, type, name, qualified name, file path)."""
    values = [
        {"id": i, "type": t, "name": n, "qualified_name": q, "file_path": f}
        for i, t, n, q, f in rows
    ]
    db.write(lambda conn: conn.execute(insert(ENTITIES), values))
