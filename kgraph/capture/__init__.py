"""Turning commits, transcripts and CLAUDE.md into knowledge (with redaction).

Three stages: ``sources`` read each kind of text into found items, ``gate`` decides what
may be stored and about which files, and at the top ``extract`` (the pure step: entries
and commits in, candidates out), ``session_capture`` (one session read, extracted and
written in one transaction) and ``worker`` (the detached process that drains the queue).

The capture hooks queue requests (:mod:`kgraph.runtime.queue`) and start the detached
worker (:mod:`kgraph.capture.worker`), which does the work under a per-session lock.
Callers outside the package use the names in ``__all__``; they load on first use
(PEP 562), so importing this package imports nothing (the capture hooks must stay cheap).
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.capture.history import HistoryReport, learn_from_history
    from kgraph.capture.metrics import metrics_summary
    from kgraph.capture.session_capture import CaptureResult, capture_session
    from kgraph.capture.sessions import add_injected, injected_ids, list_sessions
    from kgraph.capture.sources.claude_md import SyncResult, sync_claude_md
    from kgraph.capture.sources.commits import issue_from_branch
    from kgraph.capture.worker import run_worker

_LAZY = {
    "SyncResult": "sources.claude_md",
    "sync_claude_md": "sources.claude_md",
    "issue_from_branch": "sources.commits",
    "HistoryReport": "history",
    "learn_from_history": "history",
    "metrics_summary": "metrics",
    "CaptureResult": "session_capture",
    "capture_session": "session_capture",
    "add_injected": "sessions",
    "injected_ids": "sessions",
    "list_sessions": "sessions",
    "run_worker": "worker",
}

__all__ = [
    "CaptureResult",
    "HistoryReport",
    "SyncResult",
    "add_injected",
    "capture_session",
    "injected_ids",
    "issue_from_branch",
    "learn_from_history",
    "list_sessions",
    "metrics_summary",
    "run_worker",
    "sync_claude_md",
]


__getattr__ = lazy(__name__, _LAZY)
