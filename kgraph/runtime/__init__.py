"""The hooks' and the worker's runtime on disk: the project's ``.claude/kgraph/`` folder.

What every short-lived kgraph process shares without the database: the state folder and its
log (``state``), the hook budgets and capture switches of ``.claude/kgraph.toml``
(``settings``), the capture queue the hooks fill and the worker drains (``queue``), starting
that worker detached (``spawn``), per-session and per-worker locks (``lock``), the notices
shown to the user once (``notice``), each session's set of injected item ids (``seen``) and
the one way to run git against the user's repository (``git``).
Standard library only, below every package that reads or writes knowledge, so a hook can use
it without importing SQLAlchemy. Callers outside the package use the names in ``__all__``;
they load on first use (PEP 562), so importing this package imports nothing.
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.runtime.logfile import flush_logs, get_logger
    from kgraph.runtime.queue import enqueue
    from kgraph.runtime.seen import Recent, Seen, seen_state
    from kgraph.runtime.seen import remember as remember_seen
    from kgraph.runtime.settings import (
        HookSettings,
        load_settings,
        set_extractor,
        set_learn_history,
    )
    from kgraph.runtime.spawn import spawn_worker

# name -> "module" or "module:attribute"
_LAZY = {
    "enqueue": "queue",
    "remember_seen": "seen:remember",
    "seen_state": "seen",
    "Recent": "seen",
    "Seen": "seen",
    "HookSettings": "settings",
    "load_settings": "settings",
    "set_extractor": "settings",
    "set_learn_history": "settings",
    "spawn_worker": "spawn",
    "flush_logs": "logfile",
    "get_logger": "logfile",
}

__all__ = [
    "HookSettings",
    "Recent",
    "Seen",
    "enqueue",
    "flush_logs",
    "get_logger",
    "load_settings",
    "remember_seen",
    "seen_state",
    "set_extractor",
    "set_learn_history",
    "spawn_worker",
]


__getattr__ = lazy(__name__, _LAZY)
