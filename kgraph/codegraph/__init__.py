"""Code graph: tree-sitter parsing of Python and TypeScript/JavaScript, import-aware call
resolution, an incremental store in the ``graph_*`` tables, and queries over it.

The public names are listed in ``__all__``; the query and parsing functions load on first
use (PEP 562), so the cross-area contract other packages call on hot paths
(:func:`has_graph`, :func:`files_in_blast_radius`) costs no parser or networkx import.
"""

from typing import TYPE_CHECKING

from kgraph.codegraph.filedeps import files_in_blast_radius, has_graph
from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.codegraph.export import export_callgraph
    from kgraph.codegraph.indexer import ParseReport, parse_repository
    from kgraph.codegraph.paths import graph_path, graph_root
    from kgraph.codegraph.query import (
        BlastRadius,
        CallerRecord,
        FileDependent,
        Impact,
        blast_radius,
        exports,
        find_entities,
        graph_summary,
        what_calls,
        what_depends_on,
    )
    from kgraph.codegraph.records import AmbiguousNameError, EntityRecord, is_test_path

_LAZY = {
    "export_callgraph": "export",
    "ParseReport": "indexer",
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
    "graph_summary": "query",
    "what_calls": "query",
    "what_depends_on": "query",
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
    "what_calls",
    "what_depends_on",
]


__getattr__ = lazy(__name__, _LAZY)
