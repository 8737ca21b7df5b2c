"""CPU time of a whole ``kgraph knowledge import`` process, beside ``python -c "import
sqlalchemy"`` measured in the same run (issue 36: 10,000 items in <= 5 CPU-s).

Writes N realistic simple JSONL lines (default 10,000, shaped like scripts/bench_hooks.py's
learnings: a type, one of 2,000 files in ten areas, an issue number now and then), then
runs ``kgraph knowledge import FILE`` R times (default 5), each into a fresh SQLite database
(or, with ``--postgres``, a fresh PostgreSQL database from tests/pgserver.py), and prints
min / median / max of the child's user+sys CPU and wall time. CPU, not wall time, is the
measure because the reference machine's two cores are shared.

``--twice`` also times a second import of the same file into the same database (it must
report everything unchanged).

Usage:
    python scripts/bench_import.py                  # 10000 items, 5 runs
    python scripts/bench_import.py --items 2000 --runs 3 --twice
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AREAS = ["api", "auth", "billing", "core", "db", "jobs", "search", "ui", "util", "reports"]
VERBS = ["retries", "caches", "validates", "serialises", "locks", "paginates", "rounds", "logs"]
TYPES = ["learning"] * 7 + ["mistake"] * 2 + ["pattern"]


def write_items(path: Path, items: int, files: int, seed: int) -> None:
    """N simple lines (``{"content", "type", "files", "issue"}``) with distinct texts."""
    rng = random.Random(seed)
    paths = [f"src/{AREAS[i % len(AREAS)]}/mod_{i}.py" for i in range(files)]
    with path.open("w", encoding="utf-8") as out:
        for i in range(items):
            file = rng.choice(paths)
            area = file.split("/")[1]
            text = (
                f"{area} note {i}: the {file.rsplit('/', 1)[-1]} module {rng.choice(VERBS)} "
                f"requests because of case {rng.randrange(10**6)}"
            )
            record: dict[str, object] = {"content": text, "type": rng.choice(TYPES)}
            record["files"] = [file]
            if i % 500 == 0:
                record["issue"] = 4242
            out.write(json.dumps(record) + "\n")


def cpu_of(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(user+sys CPU of the child, wall seconds, stdout); raises when the child fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, cwd=cwd, env=env, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} failed: {proc.returncode} {proc.stderr[-500:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout.decode()


def summary(name: str, values: list[float], unit: str = "s") -> str:
    return (
        f"{name:<34} min {min(values):6.2f}  median {statistics.median(values):6.2f}  "
        f"max {max(values):6.2f} {unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--twice", action="store_true", help="also time a second import")
    parser.add_argument("--postgres", action="store_true", help="import into PostgreSQL")
    args = parser.parse_args()

    kgraph = shutil.which("kgraph") or str(Path(sys.executable).parent / "kgraph")
    base = Path(tempfile.mkdtemp(prefix="kgraph-bench-import-"))
    server = None
    try:
        source = base / "items.jsonl"
        write_items(source, args.items, args.files, args.seed)
        env = {**os.environ, "HOME": str(base / "home"), "KGRAPH_EMBEDDER": "fake"}
        env["CLAUDE_CONFIG_DIR"] = str(base / "home" / ".claude")
        (base / "home" / ".claude").mkdir(parents=True)
        if args.postgres:
            sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
            from tests.pgserver import start_server

            server = start_server()
        reference: list[float] = []
        cpus: list[float] = []
        walls: list[float] = []
        again: list[float] = []
        for run in range(args.runs):
            if server is not None:
                env["KGRAPH_DB"] = server.fresh_url("bench_import")
            else:
                env["KGRAPH_DB"] = f"sqlite:///{base / f'run{run}.db'}"
            reference.append(cpu_of([sys.executable, "-c", "import sqlalchemy"], base, env)[0])
            cpu, wall, out = cpu_of([kgraph, "knowledge", "import", str(source)], base, env)
            cpus.append(cpu)
            walls.append(wall)
            if run == 0:
                print(f"first import: {out.strip()}")
            if args.twice:
                cpu2, _, out2 = cpu_of([kgraph, "knowledge", "import", str(source)], base, env)
                again.append(cpu2)
                if run == 0:
                    print(f"second import: {out2.strip()}")
        print(f"{args.items} items, {args.runs} fresh databases")
        print(summary('python -c "import sqlalchemy" CPU', reference))
        print(summary("kgraph knowledge import CPU", cpus))
        print(summary("kgraph knowledge import wall", walls))
        if again:
            print(summary("second import (no-op) CPU", again))
        print(f"target: median CPU <= 5 s for 10000 items; got {statistics.median(cpus):.2f} s")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
