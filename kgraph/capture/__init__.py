"""Turning commits, transcripts and CLAUDE.md into knowledge (with redaction).

The capture hooks queue requests (:mod:`kgraph.capture.queue`) and start the detached
worker (:mod:`kgraph.capture.worker`), which does the work under a per-session lock.
Callers outside the package use the names in ``__all__``; they load on first use
(PEP 562), so importing this package imports nothing (the capture hooks must stay cheap).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgraph.capture.claude_md import SyncResult, sync_claude_md
    from kgraph.capture.commits import issue_from_branch
    from kgraph.capture.metrics import metrics_summary
    from kgraph.capture.queue import enqueue
    from kgraph.capture.session_capture import CaptureResult, capture_session
    from kgraph.capture.sessions import add_injected, injected_ids, list_sessions
    from kgraph.capture.settings import HookSettings, load_settings, set_extractor
    from kgraph.capture.spawn import spawn_worker
    from kgraph.capture.state import flush_logs, get_logger
    from kgraph.capture.worker import run_worker

_LAZY = {
    "SyncResult": "claude_md",
    "sync_claude_md": "claude_md",
    "issue_from_branch": "commits",
    "metrics_summary": "metrics",
    "CaptureResult": "session_capture",
    "capture_session": "session_capture",
    "add_injected": "sessions",
    "injected_ids": "sessions",
    "list_sessions": "sessions",
    "enqueue": "queue",
    "HookSettings": "settings",
    "load_settings": "settings",
    "set_extractor": "settings",
    "spawn_worker": "spawn",
    "flush_logs": "state",
    "get_logger": "state",
    "run_worker": "worker",
}

__all__ = [
    "CaptureResult",
    "HookSettings",
    "SyncResult",
    "add_injected",
    "capture_session",
    "enqueue",
    "flush_logs",
    "get_logger",
    "injected_ids",
    "issue_from_branch",
    "list_sessions",
    "load_settings",
    "metrics_summary",
    "run_worker",
    "set_extractor",
    "spawn_worker",
    "sync_claude_md",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kgraph.capture' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"kgraph.capture.{module}"), name)
