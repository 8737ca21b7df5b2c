"""A per-session file lock, so two workers never capture the same session at once.

``fcntl.flock`` on ``.claude/kgraph/locks/<session>.lock``: released by the kernel when the
holder exits, so a crashed worker never leaves a session locked. On Windows (no fcntl) the
lock is a no-op; capture stays correct through its watermark and idempotence refs.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

from kgraph.errors import KgraphError
from kgraph.runtime.state import ensure_state_dir, locks_dir

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class LockTimeoutError(KgraphError):
    """Another process held the session lock for longer than the timeout."""


@contextlib.contextmanager
def session_lock(root: Path, session_id: str, timeout: float = 120.0) -> Iterator[None]:
    """Hold the capture lock of ``session_id`` in the project at ``root``.

    Waits up to ``timeout`` seconds; raises LockTimeoutError after that.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    ensure_state_dir(root)
    directory = locks_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{_UNSAFE.sub('_', session_id)[:80]}.lock"
    with path.open("a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(
                        f"session {session_id} is being captured elsewhere"
                    ) from exc
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def worker_lock(root: Path) -> Iterator[bool]:
    """Try to become the project's one running worker; yields False when another holds it.

    One worker per project keeps a burst of hooks from starting many processes that each
    import SQLAlchemy at once; the holder drains what the others would have done.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield True
        return
    ensure_state_dir(root)
    directory = locks_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "worker.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
