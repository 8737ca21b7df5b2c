#!/usr/bin/env python3
"""Median whole-process time of `kgraph workflow find`, beside `python -c "import sqlalchemy"`.

Both are measured interleaved in the same run, so machine load affects them alike. The
database holds --workflows workflows (each with a few actions and commits) in a temp dir.

Usage: python scripts/bench_workflow_find.py [--runs 21] [--workflows 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--workflows", type=int, default=1000)
    args = parser.parse_args()

    from kgraph import checkpoint
    from kgraph.db import open_database

    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "bench.db"
        db = open_database(f"sqlite:///{db_path}")
        for n in range(args.workflows):
            wf = checkpoint.create_workflow(db, n, f"feat/issue-{n}")
            checkpoint.log_action(db, wf.id, "plan", "success")
            checkpoint.log_commit(db, wf.id, f"{n:07x}", "feat: step")
        db.close()

        kgraph = shutil.which("kgraph", path=str(Path(sys.executable).parent)) or shutil.which(
            "kgraph"
        )
        find_cmd = (
            [kgraph, "workflow", "find", str(args.workflows // 2), "--json"]
            if kgraph
            else [sys.executable, "-m", "kgraph.cli.main", "workflow", "find", "1", "--json"]
        )
        baseline_cmd = [sys.executable, "-c", "import sqlalchemy"]
        env = {**os.environ, "KGRAPH_DB": str(db_path)}
        timed(find_cmd, env)  # warm the OS page cache
        find_times, base_times = [], []
        for _ in range(args.runs):
            find_times.append(timed(find_cmd, env))
            base_times.append(timed(baseline_cmd, env))

    find_median = statistics.median(find_times)
    base_median = statistics.median(base_times)
    print(f"runs: {args.runs}, workflows in db: {args.workflows}")
    print(f"kgraph workflow find --json   median {find_median * 1000:7.1f} ms")
    print(f'python -c "import sqlalchemy"  median {base_median * 1000:7.1f} ms')
    print(f"ratio find / import sqlalchemy: {find_median / base_median:.2f}")


if __name__ == "__main__":
    main()
