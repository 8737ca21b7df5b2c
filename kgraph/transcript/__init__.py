"""Claude Code transcripts: a tolerant streaming reader, discovery, and derived views.

- :mod:`~kgraph.transcript.reader`: ``iter_entries``, ``read_new_entries``, ``read_tail``
  (entries are :class:`~kgraph.transcript.entry.Entry`).
- :mod:`~kgraph.transcript.views`: the one import for every derived view (tool calls, files
  touched, error→fix, Q&A, prompts, compaction, state, stuck patterns), implemented in
  ``toolcalls``, ``conversation``, ``session`` and ``stuck``.
- :mod:`~kgraph.transcript.discovery`: the Claude home, project directories, sessions, subagents.
- :mod:`~kgraph.transcript.markers`: ``<kgraph-context>`` and Claude Code's text markers.
- :mod:`~kgraph.transcript.stats`: whole-file counts and session status for the CLI.
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.transcript.discovery import find_session, find_subagents, list_sessions
    from kgraph.transcript.entry import Entry
    from kgraph.transcript.reader import compressed_kind, iter_entries, read_tail
    from kgraph.transcript.stats import session_status, transcript_stats
    from kgraph.transcript.stuck import StuckThresholds
    from kgraph.transcript.views import error_fix_sequences, qa_pairs

# Callers outside the package use the names in ``__all__``; they load on first use (PEP 562).
_LAZY = {
    "find_session": "discovery",
    "find_subagents": "discovery",
    "list_sessions": "discovery",
    "Entry": "entry",
    "compressed_kind": "reader",
    "iter_entries": "reader",
    "read_tail": "reader",
    "session_status": "stats",
    "transcript_stats": "stats",
    "StuckThresholds": "stuck",
    "error_fix_sequences": "views",
    "qa_pairs": "views",
}

__all__ = [
    "Entry",
    "StuckThresholds",
    "compressed_kind",
    "error_fix_sequences",
    "find_session",
    "find_subagents",
    "iter_entries",
    "list_sessions",
    "qa_pairs",
    "read_tail",
    "session_status",
    "transcript_stats",
]


__getattr__ = lazy(__name__, _LAZY)
