"""Recall: which stored items bear on what a session is doing now, ranked and rendered.

The one read model the hooks, the MCP server and the library share. Every module reads
with the standard library (``kgraph.db.reader``: sqlite3, or psycopg on a server), so a
hook can run it without SQLAlchemy, and the library runs the same queries on its own
connection. ``items`` loads items and their links, ``provenance`` reads where one came
from (its commit, what capture recorded); ``evidence`` weighs a file by how rare
it is among stored items; ``relevance`` ranks items against a focus; ``readmodel`` opens the
hooks' store and gathers candidates; ``briefing`` renders a block within a budget; and the
three entry points: ``session`` (the briefing at session start, with ``gitinfo`` for what
git says), ``prompt`` (the items a prompt names or tells of) and ``file`` (the items about a
file just read or edited). Callers outside the package use the names in ``__all__``; they
load on first use (PEP 562).
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.recall.briefing import Block
    from kgraph.recall.briefing import fit as fit_briefing
    from kgraph.recall.evidence import EvidenceSettings, load_evidence_settings
    from kgraph.recall.file import FileRecall, file_recall
    from kgraph.recall.prompt import code_names, prompt_ranked, prompt_recall
    from kgraph.recall.prompt import fuse as fuse_ranked
    from kgraph.recall.readmodel import held_back, one_part_each
    from kgraph.recall.recent import recent_only
    from kgraph.recall.relevance import Ranked
    from kgraph.recall.session import Briefing, SessionSignals, session_briefing
    from kgraph.recall.stale import CodeCheck, current_only

# name -> "module" or "module:attribute"
_LAZY = {
    "Block": "briefing",
    "fit_briefing": "briefing:fit",
    "EvidenceSettings": "evidence",
    "load_evidence_settings": "evidence",
    "FileRecall": "file",
    "file_recall": "file",
    "code_names": "prompt",
    "fuse_ranked": "prompt:fuse",
    "prompt_ranked": "prompt",
    "prompt_recall": "prompt",
    "held_back": "readmodel",
    "one_part_each": "readmodel",
    "recent_only": "recent",
    "Ranked": "relevance",
    "Briefing": "session",
    "SessionSignals": "session",
    "session_briefing": "session",
    "CodeCheck": "stale",
    "current_only": "stale",
}

__all__ = [
    "Block",
    "Briefing",
    "CodeCheck",
    "EvidenceSettings",
    "FileRecall",
    "Ranked",
    "SessionSignals",
    "code_names",
    "current_only",
    "file_recall",
    "fit_briefing",
    "fuse_ranked",
    "held_back",
    "load_evidence_settings",
    "one_part_each",
    "prompt_ranked",
    "prompt_recall",
    "recent_only",
    "session_briefing",
]


__getattr__ = lazy(__name__, _LAZY)
