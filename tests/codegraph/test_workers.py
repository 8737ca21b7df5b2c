"""How resolution work is split between worker processes."""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import sys
from pathlib import Path

import pytest

from kgraph.codegraph import pools, workers
from kgraph.codegraph.summary import Summary, new_summary


def _summary(calls: int) -> Summary:
    summary = new_summary("python")
    summary["calls"] = {"": ["f", 1] * calls}
    return summary


def test_batches_hold_every_file_once_heaviest_first() -> None:
    summaries = {f"m{i}.py": _summary(i) for i in range(200)}
    batches = workers._balanced_batches(sorted(summaries), summaries, jobs=2)
    flat = [path for batch in batches for path in batch]
    assert sorted(flat) == sorted(summaries)
    assert flat[0] == "m199.py" and flat[-1] == "m0.py"
    # Enough batches for the workers to even out the tail (about eight each).
    assert len(batches) == 17 and {len(b) for b in batches[:-1]} == {12}


def test_batches_are_never_tiny_nor_bigger_than_the_limit() -> None:
    few = {f"m{i}.py": _summary(1) for i in range(30)}
    assert [len(b) for b in workers._balanced_batches(list(few), few, jobs=8)] == [10, 10, 10]
    many = {f"m{i}.py": _summary(1) for i in range(5000)}
    sizes = {len(b) for b in workers._balanced_batches(list(many), many, jobs=2)}
    assert sizes == {workers.BATCH}


def test_a_file_without_a_summary_costs_nothing() -> None:
    summaries = {"a.py": _summary(3)}
    batches = workers._balanced_batches(["gone.py", "a.py"], summaries, jobs=1)
    assert batches == [["a.py", "gone.py"]]


def _resident_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)
def test_trim_heap_gives_freed_memory_back_before_a_fork() -> None:
    # Interleave kept and dropped blocks, so the freed ones are holes inside the heap that
    # free() alone does not return (only a free top of the heap goes back by itself).
    kept, dropped = [], []
    for _ in range(20_000):
        dropped.append(bytearray(4000))
        kept.append(bytearray(64))
    dropped.clear()
    before = _resident_bytes()
    pools.trim_heap()
    assert before - _resident_bytes() > 40_000_000
    assert len(kept) == 20_000


SLOW_PARSE = """
import sys, time
from pathlib import Path
from kgraph.codegraph import pools, workers
from kgraph.db.locks import held_lock

def slow(item):
    time.sleep(120)

workers.parse_one = slow
with held_lock(Path(sys.argv[1]), ".graph.lock"):
    list(workers.parse_all([(f"f{i}.py", sys.argv[1], "python") for i in range(80)], 2, None))
"""


def _children(pid: int) -> list[int]:
    found = []
    for stat in os.listdir("/proc"):
        if not stat.isdigit():
            continue
        try:
            fields = Path(f"/proc/{stat}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_parse_and_free_the_lock(tmp_path: Path) -> None:
    import signal
    import subprocess

    from tests.db.test_locks import lock_is_free, wait_for

    database = tmp_path / "k.db"
    parse = subprocess.Popen([sys.executable, "-c", SLOW_PARSE, str(database)])
    workers_seen: list[int] = []
    try:
        assert wait_for(lambda: len(workers_seen.extend(_children(parse.pid)) or workers_seen) >= 2)
        parse.send_signal(signal.SIGKILL)
        parse.wait(10)
        pool = set(workers_seen)
        assert wait_for(lambda: not any(_alive(pid) for pid in pool))
        assert lock_is_free(tmp_path / "k.db.graph.lock")
    finally:
        for pid in set(workers_seen):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


_PARSE_ONE = workers.parse_one


def _crashing(item: tuple[str, str, str]) -> workers.Parsed | None:
    """parse_one, but f7.py kills its process (as a crash in native code would)."""
    if item[0] == "f7.py":
        os.kill(os.getpid(), signal.SIGKILL)
    return _PARSE_ONE(item)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers")
def test_a_file_that_kills_its_worker_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A grammar's native code can crash its process (no exception to catch): the pool
    # breaks. The other files are parsed again; the one that kills a worker alone fails.
    source = tmp_path / "m.py"
    source.write_text("def f():\n    return g()\n")
    monkeypatch.setattr(workers, "parse_one", _crashing)  # forked workers inherit it
    items = [(f"f{i}.py", str(source), "python") for i in range(80)]
    results = list(workers.parse_all(items, 2, None))
    assert sorted(r.path for r in results) == sorted(f"f{i}.py" for i in range(80))
    failed = [r for r in results if '"failed"' in r.summary_json]
    assert [r.path for r in failed] == ["f7.py"] and failed[0].errors == 1
    assert "crashed" in failed[0].summary_json
