"""Code graph benchmark on real repositories fetched from PyPI as source distributions.

    python scripts/bench_codegraph.py [--repeat 5] [--jobs N] [--only sqlalchemy]

Fetches ``flask==3.1.0`` and ``sqlalchemy==2.0.36`` once with
``pip download --no-binary :all: --no-deps`` into ``scripts/.cache/`` (gitignored), unpacks
them, and for each (in a scratch copy, so edits never touch the cache) measures:

- cold parse (fresh database): seconds, files/s, MB/s, and the database's size after it;
- no-change re-parse (walk + hash, nothing to do) and its ratio to cold;
- a 2-file body edit (content changes, interface unchanged: only those 2 files re-resolved);
- a 2-file interface edit (a function added: every file that read them is re-resolved);
- blast-radius (depth 3) of a central API (``Flask.make_response``, ``Session.execute``)
  and of the most-called function (the worst case), and ``files_in_blast_radius`` of the
  most-imported file (depth 2).

Each number is the median of ``--repeat`` runs; the machine's CPU count and load are
printed with them because parse timings scale with free cores. So is the time of a fixed
pure-Python reference workload before and after, alone and in two processes at once: on a
shared VM the same work can take a third longer from one minute to the next, and a second
process can run 1.4x slower than the first (the two vCPUs are not always two cores); this
shows which kind of minute it was.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgraph.codegraph import files_in_blast_radius  # noqa: E402
from kgraph.codegraph.indexer import parse_repository  # noqa: E402
from kgraph.codegraph.query import blast_radius  # noqa: E402
from kgraph.db import Database, open_database  # noqa: E402
from kgraph.db.models import GraphEntity, GraphRelationship, table_of  # noqa: E402

CACHE = ROOT / "scripts" / ".cache"
PACKAGES = {"flask": "3.1.0", "sqlalchemy": "2.0.36"}
# A central API of each project, for a typical blast radius (the worst case is measured too).
TYPICAL = {"flask": "Flask.make_response", "sqlalchemy": "Session.execute"}
# Two files each: heavily imported ones, the expensive case for an interface edit.
EDITED = {
    "flask": ["src/flask/helpers.py", "src/flask/app.py"],
    "sqlalchemy": ["lib/sqlalchemy/orm/session.py", "lib/sqlalchemy/sql/elements.py"],
}


def fetch(name: str, version: str) -> Path:
    """The unpacked sdist folder (downloaded and unpacked on first use)."""
    target = CACHE / "src" / f"{name}-{version}"
    if target.is_dir():
        return target
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    archive = next(sdists.glob(f"{name}-{version}.tar.gz"), None)
    if archive is None:
        print(
            f"downloading {name}=={version} (sdist; pip builds its metadata, be patient)...",
            file=sys.stderr,
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-binary",
                ":all:",
                "--no-deps",
                f"{name}=={version}",
                "-d",
                str(sdists),
            ],
            check=True,
        )
        archive = next(sdists.glob(f"{name}-{version}.tar.gz"))
    (CACHE / "src").mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE / "src", filter="data")
    return target


def reference_workload_s(runs: int = 5) -> float:
    """Median seconds of a fixed CPU- and memory-bound workload (sort + JSON round trip),
    with the garbage collector paused: the process's own heap must not weigh on it."""
    times = []
    gc.disable()
    try:
        for _ in range(runs):
            started = time.perf_counter()
            data = [((i * 7919) % 100003, str(i)) for i in range(100_000)]
            data.sort()
            json.loads(json.dumps(data))
            times.append(time.perf_counter() - started)
    finally:
        gc.enable()
    return round(statistics.median(times), 3)


def _reference_in_child(_: int) -> float:
    return reference_workload_s(3)


def two_process_slowdown() -> float:
    """The reference workload run in two processes at once, against one alone: ~1.0 when
    the two vCPUs are two real cores, more when the host shares them (the parse runs on
    both: its wall time moves with this number)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # fresh interpreters, alike both times
    with context.Pool(1) as pool:
        alone = pool.map(_reference_in_child, [0])[0]
    with context.Pool(2) as pool:
        together = max(pool.map(_reference_in_child, [0, 1]))
    return round(together / alone, 2)


def fresh_db(folder: Path) -> Database:
    path = folder / f"bench-{time.perf_counter_ns()}.db"
    return open_database(f"sqlite:///{path}")


def timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def most_called(db: Database) -> str:
    edges = table_of(GraphRelationship)
    return str(
        db.read(
            lambda c: c.execute(
                select(edges.c.to_entity)
                .where(
                    edges.c.type == "calls",
                    edges.c.resolution != "name-only",
                    edges.c.to_file.is_not(None),
                )
                .group_by(edges.c.to_entity)
                .order_by(func.count().desc())
                .limit(1)
            ).scalar_one()
        )
    )


def most_imported(db: Database) -> str:
    edges = table_of(GraphRelationship)
    return str(
        db.read(
            lambda c: c.execute(
                select(edges.c.to_file)
                .where(edges.c.type == "imports", edges.c.to_file.is_not(None))
                .group_by(edges.c.to_file)
                .order_by(func.count().desc())
                .limit(1)
            ).scalar_one()
        )
    )


def bench(name: str, source: Path, repeat: int, jobs: int | None) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
    try:
        work = scratch / "src"
        shutil.copytree(source, work)
        cold: list[float] = []
        report = None
        db_bytes = 0
        for _ in range(repeat):
            db = fresh_db(scratch)
            seconds, report = timed(lambda db=db: parse_repository(db, work, root=work, jobs=jobs))
            cold.append(seconds)
            db.close()  # the last connection out checkpoints the WAL into the file
            assert db.path is not None
            db_bytes = db.path.stat().st_size
        assert report is not None
        db = fresh_db(scratch)
        parse_repository(db, work, root=work, jobs=jobs)
        files = report.scanned
        size_mb = (
            sum(
                f.stat().st_size
                for f in work.rglob("*")
                if f.is_file() and f.suffix in (".py", ".pyi", ".js", ".ts", ".tsx", ".jsx")
            )
            / 1e6
        )
        no_change = [
            timed(lambda: parse_repository(db, work, root=work, jobs=jobs))[0]
            for _ in range(repeat)
        ]
        body, interface, re_resolved = [], [], []
        for i in range(repeat):
            for path in EDITED[name]:
                with (work / path).open("a") as handle:
                    handle.write(f"\n# benchmark edit {i}\n")
            body.append(timed(lambda: parse_repository(db, work, root=work, jobs=jobs))[0])
            for path in EDITED[name]:
                with (work / path).open("a") as handle:
                    handle.write(f"\n\ndef _benchmark_added_{i}():\n    return {i}\n")
            seconds, changed = timed(lambda: parse_repository(db, work, root=work, jobs=jobs))
            interface.append(seconds)
            re_resolved.append(changed.resolved)
        target = most_called(db)
        hub = most_imported(db)
        radius = [
            timed(lambda: blast_radius(db, target, depth=3, record=False))
            for _ in range(max(repeat, 20))
        ]
        typical = [
            timed(lambda: blast_radius(db, TYPICAL[name], depth=3, record=False))
            for _ in range(max(repeat, 20))
        ]
        file_radius = [
            timed(lambda: files_in_blast_radius(db, [hub], depth=2))[0]
            for _ in range(max(repeat, 20))
        ]
        counts = db.read(
            lambda c: (
                c.execute(select(func.count()).select_from(table_of(GraphEntity))).scalar_one(),
                c.execute(
                    select(func.count()).select_from(table_of(GraphRelationship))
                ).scalar_one(),
            )
        )
        db.close()
        cold_median = statistics.median(cold)
        return {
            "repo": f"{name}=={PACKAGES[name]}",
            "files": files,
            "source_mb": round(size_mb, 1),
            "entities": counts[0],
            "relationships": counts[1],
            "cold_s": round(cold_median, 2),
            "cold_runs_s": [round(c, 2) for c in cold],
            "cold_files_per_s": round(files / cold_median, 1),
            "cold_mb_per_s": round(size_mb / cold_median, 2),
            "database_mb": round(db_bytes / 1e6, 1),
            "no_change_s": round(statistics.median(no_change), 3),
            "no_change_ratio": round(statistics.median(no_change) / cold_median, 3),
            "two_file_body_edit_s": round(statistics.median(body), 3),
            "two_file_interface_edit_s": round(statistics.median(interface), 3),
            "interface_edit_files_re_resolved": int(statistics.median(re_resolved)),
            "blast_radius_target": target,
            "blast_radius_impacted": len(radius[0][1].impacts),
            "blast_radius_ms": round(statistics.median(r[0] for r in radius) * 1000, 1),
            "typical_target": TYPICAL[name],
            "typical_impacted": len(typical[0][1].impacts),
            "typical_blast_radius_ms": round(statistics.median(r[0] for r in typical) * 1000, 1),
            "files_in_blast_radius_file": hub,
            "files_in_blast_radius_ms": round(statistics.median(file_radius) * 1000, 1),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPUs)")
    parser.add_argument("--only", choices=sorted(PACKAGES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = round(os.getloadavg()[0], 2)
    reference_before = reference_workload_s()
    slowdown_before = two_process_slowdown()
    results = []
    for name, version in PACKAGES.items():
        if args.only and name != args.only:
            continue
        results.append(bench(name, fetch(name, version), args.repeat, args.jobs))
    machine = {
        "cpus": os.cpu_count(),
        "load_1m_before": load_before,
        "load_1m_after": round(os.getloadavg()[0], 2),
        "jobs": args.jobs or "cpus",
        "repeat": args.repeat,
        "reference_workload_s_before": reference_before,
        "reference_workload_s_after": reference_workload_s(),
        "two_process_slowdown_before": slowdown_before,
        "two_process_slowdown_after": two_process_slowdown(),
    }
    if args.json:
        print(json.dumps({"machine": machine, "results": results}, indent=2))
        return
    print(f"machine: {machine}")
    for r in results:
        print(
            f"\n{r['repo']}: {r['files']} files, {r['source_mb']} MB, {r['entities']} "
            f"entities, {r['relationships']} relationships"
        )
        print(
            f"  cold parse            {r['cold_s']:8.2f} s  ({r['cold_files_per_s']} files/s, "
            f"{r['cold_mb_per_s']} MB/s; runs {r['cold_runs_s']})"
        )
        print(f"  database after it     {r['database_mb']:8.1f} MB")
        print(
            f"  no-change re-parse    {r['no_change_s']:8.3f} s  "
            f"({r['no_change_ratio']:.1%} of cold)"
        )
        print(f"  2-file body edit      {r['two_file_body_edit_s']:8.3f} s")
        print(
            f"  2-file interface edit {r['two_file_interface_edit_s']:8.3f} s  "
            f"({r['interface_edit_files_re_resolved']} files re-resolved)"
        )
        print(
            f"  blast-radius depth 3  {r['typical_blast_radius_ms']:8.1f} ms "
            f"({r['typical_target']}: {r['typical_impacted']} dependents)"
        )
        print(
            f"  ... worst case        {r['blast_radius_ms']:8.1f} ms "
            f"(most called, {r['blast_radius_target']}: {r['blast_radius_impacted']} "
            "dependents)"
        )
        print(
            f"  files_in_blast_radius {r['files_in_blast_radius_ms']:8.1f} ms "
            f"({r['files_in_blast_radius_file']}, depth 2)"
        )


if __name__ == "__main__":
    main()
