"""kgraph's per-project state folder ``<project root>/.claude/kgraph/``, and the hook's log.

Hooks and the capture worker both live here, so this module imports nothing heavy
(no SQLAlchemy): the capture hooks must return in well under 0.3 s.

Layout::

    .claude/kgraph/.gitignore        "*": nothing here is ever committed
    .claude/kgraph/hook.log          rotating log of hooks and the worker (errors, timings)
    .claude/kgraph/queue/*.json      capture requests written by hooks, drained by the worker
    .claude/kgraph/locks/*.lock      per-session capture locks
    .claude/kgraph/catchup.stamp     when catch-up capture was last queued
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

STATE_RELATIVE = Path(".claude") / "kgraph"
LOG_NAME = "hook.log"
LOGGER_NAME = "kgraph.hooks"


def state_dir(root: Path) -> Path:
    return root / STATE_RELATIVE


def ensure_state_dir(root: Path) -> Path:
    """Create the state folder (ignored by git: it holds a ``.gitignore`` of ``*``)."""
    from kgraph.db.gitignore import ignore_state_dir

    directory = state_dir(root)
    ignore_state_dir(directory)
    return directory


def fallback_dir(root: Path) -> Path:
    """Where the log and notices go when the project's state folder cannot be written (a
    read-only checkout): a per-user folder under the temp dir, one per project."""
    import hashlib
    import tempfile

    digest = hashlib.sha1(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"kgraph-{user}" / digest


def log_dir(root: Path) -> Path:
    """The state folder, or :func:`fallback_dir` when it cannot be created or written
    (checked with ``os.access`` on the nearest existing folder: no file is written)."""
    directory = state_dir(root)
    for probe in (directory, directory.parent, root):
        try:
            if probe.is_dir():
                return directory if os.access(probe, os.W_OK | os.X_OK) else fallback_dir(root)
        except OSError:
            break
    return fallback_dir(root)


def queue_dir(root: Path) -> Path:
    return state_dir(root) / "queue"


def locks_dir(root: Path) -> Path:
    return state_dir(root) / "locks"


def log_path(root: Path) -> Path:
    return log_dir(root) / LOG_NAME


class HookLog:
    """The log as a hook run writes it. ``logging`` (with the ``traceback``, ``string`` and
    ``threading`` it imports: about 5 ms of a hook process) is imported at the first record
    written, and most runs write none. Debug records are dropped unless ``KGRAPH_HOOK_DEBUG``
    is set, as the logger itself would (:func:`kgraph.runtime.logfile.get_logger`)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._debug = bool(os.environ.get("KGRAPH_HOOK_DEBUG"))
        self._logger: logging.Logger | None = None

    def _get(self) -> logging.Logger:
        if self._logger is None:
            from kgraph.runtime.logfile import get_logger

            self._logger = get_logger(self.root)
        return self._logger

    def debug(self, msg: str, *args: object) -> None:
        if self._debug:
            self._get().debug(msg, *args)

    def warning(self, msg: str, *args: object) -> None:
        self._get().warning(msg, *args)

    def error(self, msg: str, *args: object) -> None:
        self._get().error(msg, *args)


# The log of the hook running (between hook_log and end_hook_log); None outside a hook.
_hook_log: HookLog | None = None


def hook_log(root: Path | None) -> HookLog:
    """Open the log of the hook that starts; :func:`log_warning` writes to it too until
    :func:`end_hook_log`."""
    global _hook_log
    _hook_log = HookLog(root)
    return _hook_log


def end_hook_log() -> None:
    global _hook_log
    _hook_log = None


def log_warning(msg: str, *args: object) -> None:
    """A warning of code below the hooks (settings, the read model): to the running hook's
    log, or outside a hook to the ``kgraph.hooks`` logger as it is configured (the worker
    configures it; elsewhere Python's last-resort handler prints it on stderr)."""
    if _hook_log is not None:
        _hook_log.warning(msg, *args)
        return
    import logging

    logging.getLogger(LOGGER_NAME).warning(msg, *args)
