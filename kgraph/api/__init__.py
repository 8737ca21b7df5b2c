"""The public Python API: ``kgraph.open()`` → a :class:`Project`.

::

    import kgraph

    with kgraph.open() as kg:                      # this directory's project
        kg.learn("Hooks always exit 0", files=["kgraph/hooks/runner.py"])
        for hit in kg.search("what happens when a hook fails"):
            print(hit.item.id, hit.item.content)
        kg.graph.what_calls("open_database")

The CLI and the MCP server are built on this surface (and the packages' ``__all__``).
"""

from kgraph.api.checkpoints import Milestones, Workflows
from kgraph.api.codegraph import CodeGraph, Export
from kgraph.api.embedder import WarmEmbedder
from kgraph.api.knowledge import SearchMode, SearchResult
from kgraph.api.locate import open
from kgraph.api.project import Project
from kgraph.api.recall import Briefing, Recalled, RecallResult

__all__ = [
    "Briefing",
    "CodeGraph",
    "Export",
    "Milestones",
    "Project",
    "RecallResult",
    "Recalled",
    "SearchMode",
    "SearchResult",
    "WarmEmbedder",
    "Workflows",
    "open",
]
