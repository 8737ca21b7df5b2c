"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

A face, like ``cli`` and ``mcp``: each hook's ``run`` reads the payload, calls the room
below it (:mod:`kgraph.recall` for what to inject, :mod:`kgraph.runtime` for the queue and
the seen-set), and prints. Entry: :func:`kgraph.hooks.runner.run_hook` (the ``kgraph``
script calls it without Click, :mod:`kgraph.cli.entry`). Nothing here imports heavy
modules: the injecting hooks (session-start, user-prompt, post-tool-use) read the database
with the standard library (:mod:`kgraph.recall.readmodel`), the capture hooks (stop,
pre-compact, session-end) only queue work for the detached worker; none imports SQLAlchemy.
Callers outside the package use the names in ``__all__``, which load on first use (PEP 562).
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.hooks.context import HookOptions
    from kgraph.hooks.payload import read_input
    from kgraph.hooks.runner import EVENTS, HookResult, emit, run_hook

# name -> "module" or "module:attribute"
_LAZY = {
    "read_input": "payload",
    "EVENTS": "runner",
    "HookOptions": "context",
    "HookResult": "runner",
    "emit": "runner",
    "run_hook": "runner",
}

__all__ = [
    "EVENTS",
    "HookOptions",
    "HookResult",
    "emit",
    "read_input",
    "run_hook",
]


__getattr__ = lazy(__name__, _LAZY)
