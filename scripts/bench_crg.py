#!/usr/bin/env python3
"""kgraph's one-off graph commands beside code-review-graph's, on Django 5.1.4, interleaved.

Each command is a whole process, as a person or a skill runs it: kgraph's console script
of this interpreter and code-review-graph's (``--crg``: its own virtual environment, e.g.
``python -m venv /tmp/crg-venv && /tmp/crg-venv/bin/pip install code-review-graph==2.3.9``).
The pairs:

- ``kgraph graph what-calls NAME`` / ``code-review-graph query callers_of NAME``;
- ``kgraph graph blast-radius FILE --depth 2`` / ``code-review-graph impact --files FILE``
  (its default depth is 2);
- ``kgraph graph parse`` / ``code-review-graph update``, with nothing changed.

Setup, untimed: Django's wheel (``pip download --no-deps django==5.1.4`` into
``scripts/.cache/`` once, or ``--django``) unpacked into a temporary git repository and
committed; each tool builds its graph there (``graph parse``, ``build``), then every case
runs once untimed (bytecode, page cache). Every round runs every case once, in order, so
load on the machine falls on both tools alike; the table gives each case's median CPU time
(user + sys of the child, from ``getrusage(RUSAGE_CHILDREN)``) and wall time, and
kgraph's CPU as a ratio of code-review-graph's, against issue 36's targets (what-calls and
blast-radius ≤ 0.6, a no-change parse ≤ 0.5).

Usage:
    python scripts/bench_crg.py --crg /tmp/crg-venv/bin/code-review-graph --runs 9
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
DJANGO = "django==5.1.4"


@dataclass(frozen=True)
class Pair:
    """One question asked of both tools: kgraph's arguments and code-review-graph's."""

    name: str
    kgraph: tuple[str, ...]
    crg: tuple[str, ...]
    target: float


PAIRS = [
    Pair(
        "what-calls get_random_string (9 callers)",
        ("graph", "what-calls", "get_random_string"),
        ("query", "callers_of", "get_random_string"),
        0.6,
    ),
    Pair(
        "what-calls ValidationError (99)",
        ("graph", "what-calls", "ValidationError"),
        ("query", "callers_of", "ValidationError"),
        0.6,
    ),
    Pair(
        "blast-radius django/utils/crypto.py",
        ("graph", "blast-radius", "django/utils/crypto.py", "--depth", "2"),
        ("impact", "--files", "django/utils/crypto.py"),
        0.6,
    ),
    Pair(
        "blast-radius django/core/exceptions.py",
        ("graph", "blast-radius", "django/core/exceptions.py", "--depth", "2"),
        ("impact", "--files", "django/core/exceptions.py"),
        0.6,
    ),
    Pair("no-change parse / update", ("graph", "parse"), ("update",), 0.5),
]


def django_wheel(given: str | None) -> Path:
    if given:
        return Path(given)
    found = sorted(CACHE.glob("Django-5.1.4-*.whl"))
    if not found:
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", DJANGO, "-d", str(CACHE)],
            check=True,
        )
        found = sorted(CACHE.glob("Django-5.1.4-*.whl"))
    return found[0]


def git_repo(wheel: Path, folder: Path) -> Path:
    """The wheel's files in a new git repository, committed."""
    repo = folder / "django"
    repo.mkdir()
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(repo)
    git = ["git", "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Django 5.1.4"], cwd=repo, check=True)
    return repo


def kgraph_command() -> list[str]:
    found = shutil.which("kgraph", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "kgraph.cli.entry"]


def cpu_and_wall(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--crg", required=True, help="code-review-graph's executable")
    parser.add_argument("--django", help="Django 5.1.4's wheel (default: downloaded once)")
    parser.add_argument("--runs", type=int, default=9, help="rounds (default 9)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kgraph-bench-crg-") as tmp:
        repo = git_repo(django_wheel(args.django), Path(tmp))
        env = {k: v for k, v in os.environ.items() if k != "KGRAPH_DB"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        kgraph = kgraph_command()
        crg = [args.crg]
        subprocess.run([*kgraph, "graph", "parse", "."], cwd=repo, env=env, check=True)
        subprocess.run([*crg, "build", "--repo", str(repo)], cwd=repo, env=env, check=True)
        cases = {
            (pair.name, tool): [*head, *argv]
            for pair in PAIRS
            for tool, head, argv in (("kgraph", kgraph, pair.kgraph), ("crg", crg, pair.crg))
        }
        for argv in cases.values():  # untimed: bytecode written, the page cache warm
            cpu_and_wall(argv, repo, env)
        cpu: dict[tuple[str, str], list[float]] = {key: [] for key in cases}
        wall: dict[tuple[str, str], list[float]] = {key: [] for key in cases}
        for _ in range(args.runs):
            for key, argv in cases.items():
                spent, took = cpu_and_wall(argv, repo, env)
                cpu[key].append(spent)
                wall[key].append(took)

    print(f"Django 5.1.4, {args.runs} interleaved rounds, medians (CPU = user + sys)")
    print()
    print(
        "| command | kgraph CPU ms | code-review-graph CPU ms | kgraph / crg | target | "
        "wall ms (kgraph / crg) |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for pair in PAIRS:
        ours, theirs = (statistics.median(cpu[(pair.name, tool)]) for tool in ("kgraph", "crg"))
        walls = [statistics.median(wall[(pair.name, tool)]) * 1000 for tool in ("kgraph", "crg")]
        ratio = ours / theirs
        verdict = "ok" if ratio <= pair.target else "OVER"
        print(
            f"| {pair.name} | {ours * 1000:.0f} | {theirs * 1000:.0f} | {ratio:.2f} | "
            f"≤ {pair.target:g} {verdict} | {walls[0]:.0f} / {walls[1]:.0f} |"
        )


if __name__ == "__main__":
    main()
