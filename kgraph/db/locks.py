"""Exclusive file locks that die with their holder and say who holds them.

``flock`` locks are released by the kernel when every descriptor of the lock's open file is
closed, so a killed holder never leaves a lock behind. Two things could still keep one held:

- a process forked while the lock is held (the graph parse's pool workers) inherits the
  descriptor and would keep the lock until it exits. A fork handler points the child's copy
  at /dev/null, so only the process that took the lock holds it;
- an exec'd child would inherit it too: the descriptor is opened close-on-exec.

The holder writes ``<pid> <start time> <command>`` into the lock file, so a process that has
to wait can say whom it waits for.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

_HELD: set[int] = set()


class Holder(NamedTuple):
    pid: int
    since: float  # time.time() when it took the lock
    command: str

    def describe(self) -> str:
        running = max(0.0, time.time() - self.since)
        what = f": {self.command}" if self.command else ""
        return f"pid {self.pid}, for {running:.0f} s{what}"


def _forget_in_child() -> None:
    """After fork: the child must not hold its parent's locks (see module docstring)."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def read_holder(fd: int) -> Holder | None:
    """Who wrote the lock file last (None when it is empty or unreadable)."""
    try:
        text = os.pread(fd, 1024, 0).decode("utf-8", errors="replace")
    except OSError:
        return None
    parts = text.strip().split(" ", 2)
    try:
        return Holder(int(parts[0]), float(parts[1]), parts[2] if len(parts) > 2 else "")
    except (ValueError, IndexError):
        return None


def _write_holder(fd: int) -> None:
    command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    line = f"{os.getpid()} {time.time():.3f} {command[:300]}\n".encode(errors="replace")
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, line, 0)


@contextlib.contextmanager
def held_lock(
    path: Path | None,
    suffix: str = ".lock",
    on_wait: Callable[[Holder | None], None] | None = None,
) -> Iterator[None]:
    """Hold an exclusive lock on ``<path><suffix>``, blocking while another process holds it
    (``on_wait(holder)`` is called once first). A no-op without a path or without fcntl."""
    if path is None:
        yield
        return
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking and the retry cover it
        yield
        return
    lock_path = path.with_name(path.name + suffix)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(read_holder(fd))
            fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD.add(fd)
        _write_holder(fd)
        try:
            yield
        finally:
            _HELD.discard(fd)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
