"""Code graph: tree-sitter parsing of Python, TypeScript/JavaScript, Go, Java and Rust
(:mod:`.langs`), import-aware call resolution, an incremental store in the ``graph_*``
tables, and queries over it.

The public names are listed in ``__all__``; the query and parsing functions load on first
use (PEP 562), so the cross-area contract other packages call on hot paths
(:func:`has_graph`, :func:`files_in_blast_radius`) costs no parser or networkx import.
The queries and the no-change check of a parse (:func:`unchanged_report`) run on a DB-API
connection and import neither SQLAlchemy nor the parsers.
"""

from typing import TYPE_CHECKING

from kgraph.codegraph.filedeps import files_in_blast_radius, has_graph
from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.codegraph.export import export_callgraph
    from kgraph.codegraph.indexer import parse_repository
    from kgraph.codegraph.paths import graph_path, graph_root
    from kgraph.codegraph.query import (
        BlastRadius,
        CallerRecord,
        FileDependent,
        Impact,
        blast_radius,
        exports,
        find_entities,
        what_calls,
        what_depends_on,
    )
    from kgraph.codegraph.records import AmbiguousNameError, EntityRecord, is_test_path
    from kgraph.codegraph.stats import graph_summary
    from kgraph.codegraph.uptodate import ParseReport, parse_target, unchanged_report

_LAZY = {
    "export_callgraph": "export",
    "ParseReport": "uptodate",
    "parse_repository": "indexer",
    "graph_path": "paths",
    "graph_root": "paths",
    "BlastRadius": "query",
    "CallerRecord": "query",
    "FileDependent": "query",
    "Impact": "query",
    "blast_radius": "query",
    "exports": "query",
    "find_entities": "query",
    "graph_summary": "stats",
    "what_calls": "query",
    "what_depends_on": "query",
    "parse_target": "uptodate",
    "unchanged_report": "uptodate",
    "AmbiguousNameError": "records",
    "EntityRecord": "records",
    "is_test_path": "records",
}

__all__ = [
    "AmbiguousNameError",
    "BlastRadius",
    "CallerRecord",
    "EntityRecord",
    "FileDependent",
    "Impact",
    "ParseReport",
    "blast_radius",
    "export_callgraph",
    "exports",
    "files_in_blast_radius",
    "find_entities",
    "graph_path",
    "graph_root",
    "graph_summary",
    "has_graph",
    "is_test_path",
    "parse_repository",
    "parse_target",
    "unchanged_report",
    "what_calls",
    "what_depends_on",
]


__getattr__ = lazy(__name__, _LAZY)
