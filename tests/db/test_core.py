"""``file_lock``: one process at a time per database file, and a word before waiting."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from kgraph.db.core import file_lock


def _hold(path: str, held: multiprocessing.synchronize.Event, seconds: float) -> None:
    with file_lock(Path(path), ".test.lock"):
        held.set()
        time.sleep(seconds)


def test_a_held_lock_makes_the_next_holder_wait_and_say_so(tmp_path: Path) -> None:
    database = tmp_path / "x.db"
    context = multiprocessing.get_context("fork")
    held = context.Event()
    holder = context.Process(target=_hold, args=(str(database), held, 0.5))
    holder.start()
    assert held.wait(10)
    waited: list[float] = []
    started = time.monotonic()
    with file_lock(database, ".test.lock", on_wait=lambda: waited.append(time.monotonic())):
        acquired = time.monotonic()
    holder.join(10)
    assert len(waited) == 1 and waited[0] - started < 0.3  # told before blocking
    assert acquired - started >= 0.3  # and only acquired once the holder let go
    assert (tmp_path / "x.db.test.lock").exists()


def test_a_free_lock_is_taken_without_waiting(tmp_path: Path) -> None:
    waited: list[bool] = []
    with file_lock(tmp_path / "x.db", ".test.lock", on_wait=lambda: waited.append(True)):
        pass
    with file_lock(tmp_path / "x.db", ".test.lock", on_wait=lambda: waited.append(True)):
        pass
    assert waited == []
