"""Parse with two checkouts of kgraph against each other, interleaved: cold and 2-file edits.

This shared VM's speed drifts by a third from one minute to the next, so two benchmark runs
minutes apart cannot tell a 10 % change from noise. This script alternates the two
checkouts run by run (a fresh process each, on a scratch copy of the source: one cold parse
into a new database, then the two edits of ``scripts/bench_codegraph.py`` — a body edit of
two heavily imported files, then an interface edit of the same two — each followed by an
incremental parse) and reports each one's median wall and CPU time, and their ratios.

    git worktree add /tmp/kgraph-before <commit>
    python scripts/ab_codegraph.py /tmp/kgraph-before . --rounds 8 [--wheel]

``--wheel`` measures what ``pip install .`` installs: each checkout's wheel is built and
unpacked first (a checkout with ``hatch_build.py`` compiles its code graph with mypyc; the
checkouts themselves run pure Python, as an editable install does).

The source defaults to sqlalchemy's, as unpacked by ``scripts/bench_codegraph.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

DEFAULT_SOURCE = Path(__file__).parent / ".cache" / "src" / "sqlalchemy-2.0.36"

# Runs in the child, with the checkout first on sys.path: one cold parse, timed inside.
_CHILD = """
import json, os, shutil, sys, tempfile, time
from pathlib import Path
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import open_database
source, edited = Path(sys.argv[1]), json.loads(sys.argv[2])

def timed(work, db):
    before, started = os.times(), time.perf_counter()
    report = parse_repository(db, work, root=work)
    wall, after = time.perf_counter() - started, os.times()
    return wall, sum(after[:4]) - sum(before[:4]), report

def edit(work, text):
    for path in edited:
        with (work / path).open("a") as handle:
            handle.write(text)

with tempfile.TemporaryDirectory() as folder:
    work = Path(folder) / "src"
    shutil.copytree(source, work)
    db = open_database(f"sqlite:///{folder}/graph.db")
    wall, cpu, report = timed(work, db)
    edit(work, "\\n# benchmark edit\\n")
    body_wall, _, _ = timed(work, db)
    edit(work, "\\n\\ndef _benchmark_added():\\n    return 1\\n")
    interface_wall, _, _ = timed(work, db)
    db.close()
print(json.dumps({"wall": wall, "cpu": cpu, "files": report.scanned,
                  "body": body_wall, "interface": interface_wall}))
"""
# Heavily imported files of sqlalchemy: the expensive case for an interface edit.
DEFAULT_EDITED = ["lib/sqlalchemy/orm/session.py", "lib/sqlalchemy/sql/elements.py"]


def run_once(checkout: Path, source: Path, edited: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(source), json.dumps(edited)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(source).parent,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def unpacked_wheel(checkout: Path, folder: Path) -> Path:
    """Build ``checkout``'s wheel (as ``pip install .`` does) and unpack it under
    ``folder``; returns the folder to put on ``PYTHONPATH``."""
    wheels = folder / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(checkout)],
        check=True,
    )
    (wheel,) = wheels.glob("*.whl")
    site = folder / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    wheel.unlink()
    return site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="checkout measured first in each round")
    parser.add_argument("after", type=Path, help="checkout measured second in each round")
    parser.add_argument(
        "--source",
        type=Path,
        default=DEFAULT_SOURCE,
        help="folder to parse (default: sqlalchemy 2.0.36's sources)",
    )
    parser.add_argument("--rounds", type=int, default=8, help="runs of each (default 8)")
    parser.add_argument(
        "--edit",
        nargs=2,
        default=DEFAULT_EDITED,
        metavar="FILE",
        help="the two files edited, relative to the source (default: sqlalchemy's)",
    )
    parser.add_argument(
        "--wheel", action="store_true", help="measure each checkout's wheel, built and unpacked"
    )
    args = parser.parse_args()
    for checkout in (args.before, args.after):
        if not (checkout / "kgraph" / "codegraph" / "indexer.py").is_file():
            parser.error(f"{checkout} is not a kgraph checkout")
    if not args.source.is_dir():
        parser.error(f"no such folder: {args.source} (run scripts/bench_codegraph.py once)")
    with tempfile.TemporaryDirectory() as scratch:
        if args.wheel:
            args.before = unpacked_wheel(args.before, Path(scratch) / "before")
            args.after = unpacked_wheel(args.after, Path(scratch) / "after")
        _measure(args)


def _measure(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for round_number in range(1, args.rounds + 1):
        for name in ("before", "after"):
            runs[name].append(run_once(getattr(args, name), args.source, args.edit))
        print(
            f"round {round_number}/{args.rounds}: "
            + ", ".join(f"{n} {runs[n][-1]['wall']:.2f} s" for n in runs),
            file=sys.stderr,
        )
    summary: dict[str, Any] = {
        name: {
            "wall_median_s": round(statistics.median(r["wall"] for r in rs), 3),
            "cpu_median_s": round(statistics.median(r["cpu"] for r in rs), 2),
            "wall_runs_s": sorted(round(r["wall"], 2) for r in rs),
            "body_edit_median_s": round(statistics.median(r["body"] for r in rs), 3),
            "interface_edit_median_s": round(statistics.median(r["interface"] for r in rs), 3),
            "files": int(rs[0]["files"]),
        }
        for name, rs in runs.items()
    }
    summary["after_over_before"] = {
        key: round(summary["after"][field] / summary["before"][field], 3)
        for key, field in (
            ("wall", "wall_median_s"),
            ("cpu", "cpu_median_s"),
            ("body_edit", "body_edit_median_s"),
            ("interface_edit", "interface_edit_median_s"),
        )
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
