"""The rotating log file ``.claude/kgraph/hook.log`` of the hooks and the capture worker.

Apart from :mod:`kgraph.runtime.state` because it imports ``logging``: a hook imports this
only when it writes a record (:class:`kgraph.runtime.state.HookLog`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from kgraph.runtime.state import LOGGER_NAME, STATE_RELATIVE, log_path

LOG_MAX_BYTES = 1_000_000
LOG_BACKUPS = 2


class _LazyRotatingHandler(logging.Handler):
    """A rotating log file opened (its folder created, ``logging.handlers`` imported: ~5 ms a
    hook run would pay for nothing) only when the first record is written; never raises."""

    def __init__(self, filename: str) -> None:
        super().__init__()
        self.baseFilename = filename
        self._file: logging.Handler | None = None

    def _target(self) -> logging.Handler:
        if self._file is None:
            from logging.handlers import RotatingFileHandler

            from kgraph.db.gitignore import ignore_state_dir

            directory = Path(self.baseFilename).parent
            if directory.name == STATE_RELATIVE.name:
                ignore_state_dir(directory)
            else:  # the per-user fallback folder
                directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            handler = RotatingFileHandler(
                self.baseFilename,
                maxBytes=LOG_MAX_BYTES,
                backupCount=LOG_BACKUPS,
                delay=True,
                encoding="utf-8",
            )
            handler.handleError = self.handleError  # type: ignore[method-assign]
            self._file = handler
        return self._file

    def emit(self, record: logging.LogRecord) -> None:
        try:
            target = self._target()
            target.setFormatter(self.formatter)
            target.emit(record)
        except Exception:
            self.handleError(record)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()

    def handleError(self, record: logging.LogRecord) -> None:
        # The default prints a traceback to stderr, which Claude Code would show the user.
        pass


def get_logger(root: Path | None) -> logging.Logger:
    """The hook logger, writing to ``<root>/.claude/kgraph/hook.log`` (created on first record).

    Never logs to stderr: Claude Code shows a hook's stderr as an error notice. Safe to call
    repeatedly; the handler is attached once per log file. Debug records are written when
    ``KGRAPH_HOOK_DEBUG=1``.
    """
    logger = logging.getLogger(LOGGER_NAME)
    logger.propagate = False
    logger.setLevel(logging.DEBUG if os.environ.get("KGRAPH_HOOK_DEBUG") else logging.INFO)
    if root is None:
        if not logger.handlers:
            logger.addHandler(logging.NullHandler())
        return logger
    target = str(log_path(root))
    for handler in logger.handlers:
        if getattr(handler, "baseFilename", None) == target:
            return logger
    handler = _LazyRotatingHandler(target)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    for old in list(logger.handlers):
        logger.removeHandler(old)
        old.close()
    logger.addHandler(handler)
    return logger


def flush_logs() -> None:
    for handler in logging.getLogger(LOGGER_NAME).handlers:
        with contextlib.suppress(Exception):  # a failing log must not fail the hook
            handler.flush()
