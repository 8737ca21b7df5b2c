"""Locks that die with their holder: a forked child never keeps its parent's lock, and a
process that waits is told who holds it."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kgraph.db.locks import held_lock, read_holder

HOLD_AND_FORK = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from kgraph.db.locks import held_lock
    with held_lock(Path(sys.argv[1]), ".graph.lock"):
        child = os.fork()
        if child == 0:
            time.sleep(60)
            os._exit(0)
        print(child, flush=True)
        time.sleep(60)
""")


def lock_is_free(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def wait_for(condition, seconds: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_killed_holder_frees_the_lock_though_its_child_lives(tmp_path: Path) -> None:
    database = tmp_path / "k.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_AND_FORK, str(database)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    child = int(holder.stdout.readline())
    lock = tmp_path / "k.db.graph.lock"
    try:
        assert not lock_is_free(lock)
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert wait_for(lambda: lock_is_free(lock))
        os.kill(child, 0)  # the forked child is still running, without the lock
    finally:
        os.kill(child, signal.SIGKILL)


def test_the_holder_is_written_into_the_lock(tmp_path: Path) -> None:
    database = tmp_path / "k.db"
    seen = []
    with held_lock(database, ".x.lock"):
        fd = os.open(tmp_path / "k.db.x.lock", os.O_RDONLY)
        seen.append(read_holder(fd))
        os.close(fd)
    holder = seen[0]
    assert holder is not None and holder.pid == os.getpid()
    assert f"pid {os.getpid()}" in holder.describe()
    assert (tmp_path / "k.db.x.lock").read_text() == ""  # emptied when let go
