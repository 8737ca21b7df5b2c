"""Cold-parse cost per file of each language, repositories side by side, interleaved.

    python scripts/bench_languages.py /tmp/httpx /tmp/entireio-cli [--rounds 5] [--jobs 1]

For each folder, in turn (round by round, a fresh process each, so the shared machine's
drift lands on every folder alike), runs a cold ``parse_repository`` into a new database
and times it; separately it times the summarisers alone over the same files (reading,
parsing, summarising: what a worker does before resolution). Prints, per folder and
language, the median seconds, files/s and KB/s of both, and each folder's per-file cost as
a ratio of the first folder's: the issue's bar is a new language within 1.5x of Python's
per-file cost.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_CHILD = """
import json, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from kgraph.codegraph.walk import iter_source_files
from kgraph.codegraph.workers import parse_source
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import open_database
folder = Path({folder!r})
files = list(iter_source_files(folder))
data = [(f.language, f.absolute.read_bytes()) for f in files]
started = time.perf_counter()
for language, raw in data:
    parse_source(language, raw)
summarise = time.perf_counter() - started
with tempfile.TemporaryDirectory() as scratch:
    db = open_database(f"sqlite:///{{scratch}}/bench.db")
    started = time.perf_counter()
    report = parse_repository(db, folder, root=folder, jobs={jobs}, force=True)
    cold = time.perf_counter() - started
    db.close()
languages = {{}}
for f in files:
    languages[f.language] = languages.get(f.language, 0) + 1
print(json.dumps({{"files": len(files), "bytes": sum(len(d) for _l, d in data),
                  "languages": languages, "summarise": summarise, "cold": cold}}))
"""


def _run(folder: Path, jobs: int) -> dict[str, Any]:
    code = _CHILD.format(root=str(ROOT), folder=str(folder), jobs=jobs)
    with tempfile.TemporaryDirectory() as home:  # no user config leaks in
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"HOME": home, "PATH": "/usr/bin:/bin", "KGRAPH_INTERNAL": "1"},
        )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    runs: dict[Path, list[dict[str, Any]]] = {f: [] for f in args.folders}
    for _round in range(args.rounds):
        for folder in args.folders:
            runs[folder].append(_run(folder.resolve(), args.jobs))
    base: float | None = None
    print(
        f"{'folder':28} {'files':>5} {'KB':>6}  {'cold s':>7} {'files/s':>8} {'KB/s':>7} "
        f"{'summ. files/s':>13} {'per file vs first':>17}"
    )
    for folder, results in runs.items():
        first = results[0]
        cold = statistics.median(r["cold"] for r in results)
        summarise = statistics.median(r["summarise"] for r in results)
        files, kb = first["files"], first["bytes"] / 1024
        per_file = cold / files
        base = per_file if base is None else base
        print(
            f"{folder.name + ' ' + json.dumps(first['languages']):28.28} {files:5} {kb:6.0f}  "
            f"{cold:7.2f} {files / cold:8.1f} {kb / cold:7.0f} {files / summarise:13.1f} "
            f"{per_file / base:17.2f}"
        )


if __name__ == "__main__":
    main()
