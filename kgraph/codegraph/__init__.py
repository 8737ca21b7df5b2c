"""Code graph: tree-sitter parsing of Python and TypeScript/JavaScript, import-aware call
resolution, an incremental store in the ``graph_*`` tables, and queries over it.

The cross-area contract lives here: :func:`has_graph` and :func:`files_in_blast_radius`.
"""

from kgraph.codegraph.filedeps import files_in_blast_radius, has_graph

__all__ = ["files_in_blast_radius", "has_graph"]
