"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

Entry: :func:`kgraph.hooks.runner.run_hook` (the ``kgraph`` script calls it without Click,
:mod:`kgraph.cli.entry`). Nothing here imports heavy modules: the injecting hooks
(session-start, user-prompt, post-tool-use) read the database with the standard library
(:mod:`kgraph.hooks.readmodel`), the capture hooks (stop, pre-compact, session-end) only
queue work for the detached worker; none imports SQLAlchemy.
"""
