"""How a failed command ends, without importing Click: one line on stderr, an exit code.

A command that runs on kgraph.cli.entry's fast path (no Click) must fail as it does through
Click, so :func:`failure_exit` is the one place that turns an exception into ``Error: ...``
and an exit code: kgraph.cli.main's group calls it, and so do the fast paths.
"""

from __future__ import annotations

import os
import sys

from kgraph.cli.plain import echo
from kgraph.errors import KgraphError

MAX_ERROR_CHARS = 400


def one_line(message: str) -> str:
    """An error message as one line of sane length: a value the user gave may hold line
    breaks, or be 100,000 characters long."""
    flat = message.replace("\r", "\\r").replace("\n", "\\n")
    if len(flat) > MAX_ERROR_CHARS:
        flat = flat[: MAX_ERROR_CHARS - 20] + " ... " + flat[-15:]
    return flat


def path_refused(exc: BaseException) -> str | None:
    """One line for a path the system refused (too long, not allowed, a symlink loop, which
    Python 3.11 raises as RuntimeError), else None: an environment's fault, not kgraph's."""
    if isinstance(exc, OSError):
        name = f": {one_line(str(exc.filename))[:120]}" if exc.filename else ""
        return f"{exc.strerror or one_line(str(exc))}{name}"
    if isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop"):
        return one_line(str(exc))[:200]
    return None


def failure_exit(exc: BaseException) -> int:
    """Say on stderr, in one line, why a command failed and return its exit code: a
    KgraphError's own (its message), 130 for Ctrl-C, 141 when the reader of stdout went
    away (``kgraph ... | head``: quietly, as Unix tools do), 1 for a path the system
    refused and for anything unexpected (the traceback behind ``KGRAPH_DEBUG=1``, which
    re-raises it). Called inside the ``except`` that caught ``exc``."""
    if isinstance(exc, KgraphError):
        echo(f"Error: {one_line(str(exc))}", err=True)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        echo("Aborted.", err=True)
        return 130
    if isinstance(exc, BrokenPipeError):
        # Python would report the failed flush of stdout at exit: point it at devnull.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    refused = path_refused(exc)
    if refused is not None:
        echo(f"Error: {refused}", err=True)
        return 1
    if os.environ.get("KGRAPH_DEBUG"):
        raise exc
    echo(
        f"Error: internal error: {type(exc).__name__}: {one_line(str(exc))} "
        "(run with KGRAPH_DEBUG=1 for the traceback)",
        err=True,
    )
    return 1
