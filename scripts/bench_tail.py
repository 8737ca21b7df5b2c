#!/usr/bin/env python
"""Benchmark the transcript reader's tail and incremental reads on a generated transcript.

Generates a ~100 MB Claude Code-shaped transcript in a temporary directory (assistant
tool_use lines, user tool_result lines of varying size, progress lines, an occasional very
long line), then reports median in-process times:

- ``read_tail(path, 50)``  (target <= 5 ms)
- ``read_new_entries(path, end)``  when nothing is new (one stat)
- ``read_new_entries`` of ~20 freshly appended lines
- a full ``iter_entries`` pass, for scale

Usage: python scripts/bench_tail.py [--size-mb 100] [--runs 200] [--tail 50]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kgraph.transcript.reader import iter_entries, read_new_entries, read_tail


def _line(i: int, rng: random.Random) -> str:
    base = {
        "parentUuid": f"00000000-0000-4000-8000-{i - 1:012d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/user/projects/app",
        "sessionId": "bench-session",
        "version": "2.1.39",
        "gitBranch": "main",
        "uuid": f"00000000-0000-4000-8000-{i:012d}",
        "timestamp": f"2026-02-01T10:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z",
    }
    kind = i % 5
    if kind in (0, 1):
        base["type"] = "progress"
        base["data"] = {"type": "bash_progress", "output": "x" * rng.randint(50, 400)}
    elif kind == 2:
        base["type"] = "assistant"
        base["message"] = {
            "id": f"msg_{i}",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": "Bash",
                    "input": {"command": f"pytest tests/test_{i % 97}.py -q"},
                }
            ],
            "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 120},
        }
    else:
        size = 200_000 if rng.random() < 0.002 else rng.randint(200, 8_000)
        base["type"] = "user"
        base["message"] = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{i - 1}", "content": "y" * size}
            ],
        }
        base["toolUseResult"] = {
            "stdout": "y" * min(size, 2000),
            "stderr": "",
            "interrupted": False,
        }
    return json.dumps(base)


def generate(path: Path, size_mb: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    target = size_mb * 1024 * 1024
    written = 0
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        while written < target:
            line = _line(count, rng) + "\n"
            handle.write(line)
            written += len(line)
            count += 1
    return count


def median_ms(operation: Callable[[], object], runs: int) -> float:
    operation()  # warm the page cache and imports
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tail", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        start = time.perf_counter()
        lines = generate(path, args.size_mb)
        size = path.stat().st_size
        print(
            f"generated {size / 1e6:.1f} MB, {lines} lines in {time.perf_counter() - start:.1f} s"
        )

        tail = read_tail(path, args.tail)
        assert len(tail) == args.tail
        tail_ms = median_ms(lambda: read_tail(path, args.tail), args.runs)
        print(
            f"read_tail(path, {args.tail}): median {tail_ms:.2f} ms over {args.runs} runs "
            f"(target <= 5 ms)"
        )

        _, end = read_new_entries(path, size)
        idle_ms = median_ms(lambda: read_new_entries(path, end), args.runs)
        print(f"read_new_entries, nothing new: median {idle_ms:.3f} ms")

        rng = random.Random(1)
        with path.open("a", encoding="utf-8") as handle:
            for i in range(lines, lines + 20):
                handle.write(_line(i, rng) + "\n")
        new_ms = median_ms(lambda: read_new_entries(path, end), args.runs)
        print(f"read_new_entries, 20 new lines: median {new_ms:.2f} ms")

        start = time.perf_counter()
        total = sum(1 for _ in iter_entries(path))
        full_s = time.perf_counter() - start
        print(
            f"iter_entries full pass: {total} entries in {full_s:.2f} s "
            f"({size / 1e6 / full_s:.0f} MB/s); tail is {full_s * 1000 / tail_ms:.0f}x faster"
        )


if __name__ == "__main__":
    main()
