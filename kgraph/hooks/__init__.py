"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

Entry: :func:`kgraph.hooks.runner.run_hook`. Nothing here imports heavy modules at import
time; the capture hooks (stop, pre-compact, session-end) never import SQLAlchemy at all.
"""
