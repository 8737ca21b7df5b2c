"""The knowledge graph: learnings, patterns, mistakes and topics tied to code areas and files.

Modules: ``model`` (types, ids, hashing), ``areas`` (code-area rules), ``store`` (add,
link, supersede, forget), ``query`` (items, structured queries), ``search`` (hybrid
search), ``vectors`` (embeddings backfill, near-duplicates), ``graph`` (N-hop traversal),
``transfer`` (JSONL export/import), ``maintenance`` (stats, prune, area/file listings).
Importing this package is cheap: numpy, networkx and torch load only where used.
"""

from typing import TYPE_CHECKING, Any

from kgraph.knowledge.areas import AreaRules, infer_code_area, load_area_rules
from kgraph.knowledge.model import (
    ENTITY_TYPES,
    KNOWLEDGE_TYPES,
    RELATIONSHIP_TYPES,
    SOURCES,
)

if TYPE_CHECKING:
    from kgraph.knowledge.query import KnowledgeItem, get_item, list_items, query_items
    from kgraph.knowledge.search import SearchHit
    from kgraph.knowledge.store import AddResult, add_item, link, set_hidden, supersede

# The search *function* is not re-exported: ``kgraph.knowledge.search`` is also the module's
# name, and importing the submodule rebinds that package attribute to the module. Use
# ``from kgraph.knowledge.search import search``.
#
# The database-backed names load on first use (PEP 562): ``kgraph.knowledge.areas`` and
# ``.model`` must stay importable without SQLAlchemy (the session-start hook's fast path).
_LAZY = {
    "KnowledgeItem": "query",
    "get_item": "query",
    "list_items": "query",
    "query_items": "query",
    "SearchHit": "search",
    "AddResult": "store",
    "add_item": "store",
    "link": "store",
    "set_hidden": "store",
    "supersede": "store",
}

__all__ = [
    "ENTITY_TYPES",
    "KNOWLEDGE_TYPES",
    "RELATIONSHIP_TYPES",
    "SOURCES",
    "AddResult",
    "AreaRules",
    "KnowledgeItem",
    "SearchHit",
    "add_item",
    "get_item",
    "infer_code_area",
    "link",
    "list_items",
    "load_area_rules",
    "query_items",
    "set_hidden",
    "supersede",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kgraph.knowledge' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"kgraph.knowledge.{module}"), name)
