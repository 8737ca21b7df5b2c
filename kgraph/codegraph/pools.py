"""Worker pools for the code graph: processes that end with their parent, start without
a garbage collector, and fork from a trimmed heap (kgraph.codegraph.workers runs the parse
and the resolution in them)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCHDOG_INTERVAL_S = 1.0


def die_with_parent(parent: int) -> None:
    """Make this worker process end when ``parent`` does, however it ends (``kill -9``
    included): a pool worker that outlives its parse would keep working for nobody.

    Linux: the kernel sends SIGKILL on the parent's death (``PR_SET_PDEATHSIG``). Elsewhere,
    and as a second guard, a daemon thread checks every second whether the process was
    re-parented. Either way the parse lock, which workers never hold (kgraph.db.locks),
    is free as soon as the parent is gone.
    """
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCHDOG_INTERVAL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="kgraph-parent-watchdog", daemon=True).start()


def _worker_start(parent: int) -> None:
    """Pool initializer: end with the parent; worker processes are short-lived and
    allocation-heavy (no garbage collector)."""
    die_with_parent(parent)
    gc.disable()


def can_fork() -> bool:
    return sys.platform.startswith("linux")


def pool_context() -> Any:
    # fork starts workers in milliseconds and shares memory copy-on-write (the resolve pool
    # depends on it); it is only safe on Linux. Elsewhere: spawn, and resolution in-process.
    return multiprocessing.get_context("fork" if can_fork() else "spawn")


def trim_heap() -> None:
    """Give the C heap's free memory back to the OS before forking (glibc; elsewhere a
    no-op). Forked workers would otherwise reuse the parent's pages that held a previous
    run's freed data, copying each on first write: in one process, a second cold parse of
    sqlalchemy took ~20% more CPU than the first."""
    if not can_fork():  # workers are spawned, not forked: nothing to share
        return
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own C library
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return
    trim(0)


def new_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` workers that end with this process and run without a GC."""
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=pool_context(),
        initializer=_worker_start,
        initargs=(os.getpid(),),
    )
