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
