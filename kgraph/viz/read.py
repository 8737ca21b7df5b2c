"""Reading what the picture is made of, through the knowledge and code-graph query APIs.

The knowledge graph is read whole through its export (``export_lines``: every entity and
relationship in one read transaction, secrets redacted on the way out — the page is a
file written to disk). The code graph gives the file-level graph (``file_graph``) and, for
a focus, its own traversals (``blast_radius``, ``callees``, ``what_depends_on``). Nothing
here writes SQL of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgraph.codegraph.filedeps import has_graph
from kgraph.codegraph.neighbours import FileGraph, file_graph
from kgraph.db import Database
from kgraph.knowledge.areas import AreaRules
from kgraph.knowledge.export import export_lines


@dataclass(frozen=True)
class KEntity:
    """A knowledge-graph entity as exported (items, CodeArea and File entities)."""

    id: str
    type: str
    content: str
    confidence: float
    source: str
    source_ref: str | None
    issue_number: int | None
    seen_count: int
    hidden: bool
    updated_at: str


@dataclass(frozen=True)
class KnowledgeGraph:
    """Every entity by id and every relationship as (from, type, to)."""

    entities: Mapping[str, KEntity]
    edges: tuple[tuple[str, str, str], ...]

    def superseded(self) -> frozenset[str]:
        return frozenset(to for _f, t, to in self.edges if t == "SUPERSEDES")


@dataclass(frozen=True)
class Sources:
    """Everything an overview needs, read once."""

    knowledge: KnowledgeGraph
    files: FileGraph
    rules: AreaRules


def _entity(record: dict[str, Any]) -> KEntity:
    return KEntity(
        id=str(record["id"]),
        type=str(record["type"]),
        content=str(record["content"]),
        confidence=float(record.get("confidence") or 0.0),
        source=str(record.get("source") or ""),
        source_ref=record.get("source_ref"),
        issue_number=record.get("issue_number"),
        seen_count=int(record.get("seen_count") or 0),
        hidden=record.get("hidden_at") is not None,
        updated_at=str(record.get("updated_at") or ""),
    )


def read_knowledge(db: Database) -> KnowledgeGraph:
    """The whole knowledge graph (hidden entities included; the picture leaves them out)."""
    entities: dict[str, KEntity] = {}
    edges: list[tuple[str, str, str]] = []
    for line in export_lines(db):
        record = json.loads(line)
        kind = record.get("kind")
        if kind == "entity":
            entity = _entity(record)
            entities[entity.id] = entity
        elif kind == "relationship":
            edges.append((str(record["from"]), str(record["type"]), str(record["to"])))
    return KnowledgeGraph(entities, tuple(edges))


def read_sources(db: Database, rules: AreaRules) -> Sources:
    """The knowledge graph and, when one was parsed, the code graph's files and links."""
    files = file_graph(db) if has_graph(db) else FileGraph((), ())
    return Sources(read_knowledge(db), files, rules)
