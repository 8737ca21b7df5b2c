"""The knowledge graph: learnings, patterns, mistakes and topics tied to code areas and files.

Modules: ``model`` (types, ids, hashing), ``areas`` (code-area rules), ``prepare``
(validating and redacting an item before it is written), ``store`` (adding an item),
``edit`` (link, supersede, forget, merge), ``candidates`` (captured items waiting for
corroboration), ``query`` (items, structured queries), ``search`` (hybrid search),
``vectors`` (embeddings backfill, near-duplicates), ``graph`` (N-hop traversal),
``transfer`` (the JSONL format), ``export`` and ``importer`` (its two directions),
``maintenance`` (stats, prune, area/file listings).
Callers outside the package use the names in ``__all__``.
Importing this package is cheap: numpy, networkx and torch load only where used.
"""

from typing import TYPE_CHECKING

from kgraph.knowledge.areas import (
    DEFAULT_AREA_RULES,
    AreaRules,
    infer_code_area,
    load_area_rules,
    normalise_path,
    relative_path,
)
from kgraph.knowledge.model import (
    ENTITY_TYPES,
    KNOWLEDGE_TYPES,
    RELATIONSHIP_TYPES,
    SOURCES,
)
from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.knowledge.backfill import EmbedReport, count_missing, embed_missing
    from kgraph.knowledge.candidates import list_candidates
    from kgraph.knowledge.candidates import review as review_candidate
    from kgraph.knowledge.edit import link, set_hidden, supersede, unsupersede
    from kgraph.knowledge.export import ExportReport, export_knowledge
    from kgraph.knowledge.graph import PathStep, RelatedItem, related
    from kgraph.knowledge.importer import ImportReport, import_knowledge
    from kgraph.knowledge.maintenance import (
        NamedCount,
        PruneCandidate,
        Stats,
        list_areas,
        list_files,
        prune,
        stats,
    )
    from kgraph.knowledge.query import list_items, query_items
    from kgraph.knowledge.records import Edge, KnowledgeItem, get_item, get_items, item_edges
    from kgraph.knowledge.search import SearchHit
    from kgraph.knowledge.search import search as search_items
    from kgraph.knowledge.store import AddResult, add_item
    from kgraph.knowledge.vectors import has_vectors, nearest

# The search *function* is exported as ``search_items``: ``kgraph.knowledge.search`` is
# also the module's name, and importing the submodule rebinds that package attribute to
# the module.
#
# The database-backed names load on first use (PEP 562): ``kgraph.knowledge.areas`` and
# ``.model`` must stay importable without SQLAlchemy (the session-start hook's fast path).
# name -> "module" or "module:attribute".
_LAZY = {
    "list_candidates": "candidates",
    "review_candidate": "candidates:review",
    "PathStep": "graph",
    "RelatedItem": "graph",
    "related": "graph",
    "NamedCount": "maintenance",
    "PruneCandidate": "maintenance",
    "Stats": "maintenance",
    "list_areas": "maintenance",
    "list_files": "maintenance",
    "prune": "maintenance",
    "stats": "maintenance",
    "Edge": "records",
    "KnowledgeItem": "records",
    "get_item": "records",
    "get_items": "records",
    "item_edges": "records",
    "list_items": "query",
    "query_items": "query",
    "SearchHit": "search",
    "search_items": "search:search",
    "AddResult": "store",
    "add_item": "store",
    "link": "edit",
    "set_hidden": "edit",
    "supersede": "edit",
    "unsupersede": "edit",
    "ExportReport": "export",
    "ImportReport": "importer",
    "export_knowledge": "export",
    "import_knowledge": "importer",
    "EmbedReport": "backfill",
    "count_missing": "backfill",
    "embed_missing": "backfill",
    "has_vectors": "vectors",
    "nearest": "vectors",
}

__all__ = [
    "DEFAULT_AREA_RULES",
    "ENTITY_TYPES",
    "KNOWLEDGE_TYPES",
    "RELATIONSHIP_TYPES",
    "SOURCES",
    "AddResult",
    "AreaRules",
    "Edge",
    "EmbedReport",
    "ExportReport",
    "ImportReport",
    "KnowledgeItem",
    "NamedCount",
    "PathStep",
    "PruneCandidate",
    "RelatedItem",
    "SearchHit",
    "Stats",
    "add_item",
    "count_missing",
    "embed_missing",
    "export_knowledge",
    "get_item",
    "get_items",
    "has_vectors",
    "import_knowledge",
    "infer_code_area",
    "item_edges",
    "link",
    "list_areas",
    "list_candidates",
    "list_files",
    "list_items",
    "load_area_rules",
    "nearest",
    "normalise_path",
    "prune",
    "query_items",
    "related",
    "relative_path",
    "review_candidate",
    "search_items",
    "set_hidden",
    "stats",
    "supersede",
    "unsupersede",
]


__getattr__ = lazy(__name__, _LAZY)
