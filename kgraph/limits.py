"""The sizes of what a person or a client may hand kgraph, one set for every face.

The CLI, the hooks and the MCP server refuse the same oversized values at the door, so a
name that one of them takes the others take too, and nothing deeper meets a LIKE pattern
past SQLite's limit or a prompt no hook would read.
"""

NAME_CHARS = 1_000  # a code name, id or path to look up
QUERY_CHARS = 10_000  # a search query
PROMPT_CHARS = 100_000  # a prompt: what a hook reads of Claude Code's input
JOBS = 64  # worker processes a graph parse may start
JSON_CHARS = 1_000_000  # a JSON value given on the command line (--metadata)
JSON_DEPTH = 32  # how deeply it may nest
