#!/usr/bin/env python3
"""CPU time of whole ``kgraph`` processes, beside ``python -c "import sqlite3"`` and
``python -c "import sqlalchemy"`` measured in the same run.

Each case is one command line run as a process of its own, the way a person or a skill
runs it (the ``kgraph`` console script of this interpreter). Every round runs every case
once, in order, so load on the machine affects all cases alike; the table gives each case's
median CPU time (user + sys of the child, from ``getrusage(RUSAGE_CHILDREN)``) and wall time
over the rounds, and the CPU median as a ratio of the two references. A case with a
``budget`` says whether its ratio to ``import sqlite3`` is within it.

The processes read bytecode as an installed kgraph does (pip compiles it at install): a
temporary PYTHONPYCACHEPREFIX is filled by a first, untimed run of every case, even when
PYTHONDONTWRITEBYTECODE is set in this shell (``--source`` keeps the shell's setting: with
PYTHONDONTWRITEBYTECODE set and no ``__pycache__`` beside the sources, every kgraph module
is compiled in every process).

Setup, untimed, in a temporary git repository: a database of --workflows workflows (each
with an action and a commit) and --milestones milestones, made with the library. Cases are
:data:`CASES`, a list of named command lines whose ``{placeholders}`` come from
:func:`prepare`: add a row by adding a Case (and what it needs to ``prepare``). The
``graph`` cases query kgraph's own package, committed and parsed there
(:func:`prepare_graph`); the side by side with code-review-graph on Django is
``scripts/bench_crg.py``.

Usage:
    python scripts/bench_cli.py                     # 15 rounds, 1000 workflows
    python scripts/bench_cli.py --runs 21 --only workflow
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
from dataclasses import dataclass
from pathlib import Path

REFERENCES = ('python -c "import sqlite3"', 'python -c "import sqlalchemy"')


@dataclass(frozen=True)
class Case:
    """A command line: ``kgraph ARGV`` (or ``python ARGV`` when ``python``), its
    ``{placeholders}`` filled from :func:`prepare`; ``budget``: the most its CPU may be,
    as a multiple of ``import sqlite3``'s."""

    name: str
    argv: tuple[str, ...]
    python: bool = False
    budget: float | None = None


CASES: list[Case] = [
    Case(REFERENCES[0], ("-c", "import sqlite3"), python=True),
    Case(REFERENCES[1], ("-c", "import sqlalchemy"), python=True),
    Case("workflow create", ("workflow", "create", "{issue}", "feat/bench", "--json")),
    Case("workflow set-phase", ("workflow", "set-phase", "{workflow}", "implement"), budget=3),
    Case(
        "workflow log-action",
        ("workflow", "log-action", "{workflow}", "run-tests", "failed", "--metadata", '{"n": 3}'),
        budget=3,
    ),
    Case("workflow log-commit", ("workflow", "log-commit", "{workflow}", "abc123", "feat: x")),
    Case("workflow find", ("workflow", "find", "{issue}", "--json"), budget=3),
    Case("workflow get", ("workflow", "get", "{workflow}", "--json")),
    Case("workflow list", ("workflow", "list", "--active", "--limit", "20", "--json")),
    Case("milestone create", ("milestone", "create", "v-bench", "--json")),
    Case("milestone set-phase", ("milestone", "set-phase", "{milestone}", "execute")),
    Case("milestone find", ("milestone", "find", "{milestone_name}", "--json")),
    Case("milestone get", ("milestone", "get", "{milestone}", "--json")),
    Case("milestone list", ("milestone", "list", "--status", "running", "--json")),
    # On kgraph's own package parsed in the repository (prepare_graph).
    Case("graph what-calls", ("graph", "what-calls", "kgraph.codegraph.filedeps.normalise_path")),
    Case("graph blast-radius", ("graph", "blast-radius", "kgraph/codegraph/filedeps.py")),
    Case("graph find", ("graph", "find", "Record")),
    Case("graph exports", ("graph", "exports", "kgraph/codegraph/records.py")),
    Case("graph what-depends-on", ("graph", "what-depends-on", "kgraph/codegraph/records.py")),
    Case("graph parse (no change)", ("graph", "parse")),
]


def prepare(folder: Path, workflows: int, milestones: int) -> dict[str, str]:
    """A git repository with its database filled; the values the cases' placeholders name,
    and ``KGRAPH_DB``."""
    from kgraph import checkpoint
    from kgraph.db import open_database

    repo = folder / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    db_path = repo / ".claude" / "execution-state.db"
    db = open_database(f"sqlite:///{db_path}")
    try:
        ids = []
        for n in range(workflows):
            wf = checkpoint.create_workflow(db, n, f"feat/issue-{n}")
            checkpoint.log_action(db, wf.id, "plan", "success")
            checkpoint.log_commit(db, wf.id, f"{n:07x}", "feat: step")
            ids.append(wf.id)
        ms_ids = [checkpoint.create_milestone(db, f"v{n}").id for n in range(milestones)]
        for n, workflow_id in enumerate(ids[: 5 * len(ms_ids)]):
            checkpoint.add_workflow_to_milestone(db, ms_ids[n // 5], workflow_id, wave=n % 3 + 1)
    finally:
        db.close()
    middle = workflows // 2
    return {
        "repo": str(repo),
        "KGRAPH_DB": str(db_path),
        "issue": str(middle),
        "workflow": ids[middle],
        "milestone": ms_ids[0],
        "milestone_name": "v0",
    }


def prepare_graph(repo: Path, db_path: str) -> None:
    """kgraph's own package committed into ``repo`` and parsed into its database: the
    graph the ``graph`` cases query (code-review-graph's side by side: bench_crg.py)."""
    from kgraph.codegraph import parse_repository
    from kgraph.db import open_database

    shutil.copytree(
        Path(__file__).resolve().parent.parent / "kgraph",
        repo / "kgraph",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    git = ["git", "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run([*git, "add", "kgraph"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "kgraph"], cwd=repo, check=True)
    db = open_database(f"sqlite:///{db_path}")
    try:
        parse_repository(db, repo, root=repo)
    finally:
        db.close()


def command(case: Case, values: dict[str, str]) -> list[str]:
    kgraph = shutil.which("kgraph", path=str(Path(sys.executable).parent))
    head = [sys.executable] if case.python or kgraph is None else [kgraph]
    if not case.python and kgraph is None:
        head += ["-m", "kgraph"]
    return head + [fill(part, values) for part in case.argv]


def fill(part: str, values: dict[str, str]) -> str:
    """``part`` with each ``{name}`` of ``values`` replaced (other braces, JSON's, kept)."""
    for name, value in values.items():
        part = part.replace(f"{{{name}}}", value)
    return part


def cpu_and_wall(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("--workflows", type=int, default=1000)
    parser.add_argument("--milestones", type=int, default=20)
    parser.add_argument("--only", help="only the cases whose name contains this")
    parser.add_argument("--source", action="store_true", help="no bytecode cache (see above)")
    args = parser.parse_args()
    cases = [c for c in CASES if c.python or not args.only or args.only in c.name]

    with tempfile.TemporaryDirectory(prefix="kgraph-bench-cli-") as tmp:
        folder = Path(tmp)
        values = prepare(folder, args.workflows, max(1, args.milestones))
        if any(case.name.startswith("graph ") for case in cases):
            prepare_graph(Path(values["repo"]), values["KGRAPH_DB"])
        env = {**os.environ, "KGRAPH_DB": values["KGRAPH_DB"]}
        if not args.source:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        argvs = [command(case, values) for case in cases]
        for argv in argvs:  # untimed: bytecode written, the page cache warm
            cpu_and_wall(argv, values["repo"], env)
        cpu: dict[str, list[float]] = {c.name: [] for c in cases}
        wall: dict[str, list[float]] = {c.name: [] for c in cases}
        for _ in range(args.runs):
            for case, argv in zip(cases, argvs, strict=True):
                spent, took = cpu_and_wall(argv, values["repo"], env)
                cpu[case.name].append(spent)
                wall[case.name].append(took)

    medians = {name: statistics.median(times) for name, times in cpu.items()}
    sqlite_cpu, sqlalchemy_cpu = (medians[name] for name in REFERENCES)
    print(
        f"{args.runs} interleaved rounds, {args.workflows} workflows; medians; "
        f"bytecode: {'none (--source)' if args.source else 'cached'}"
    )
    print()
    print("| command | CPU ms | wall ms | × import sqlite3 | × import sqlalchemy | budget |")
    print("|---|---:|---:|---:|---:|---|")
    for case in cases:
        ratio = medians[case.name] / sqlite_cpu
        budget = ""
        if case.budget is not None:
            budget = f"≤ {case.budget:g}× {'ok' if ratio <= case.budget else 'OVER'}"
        label = case.name if case.python else f"kgraph {case.name}"
        print(
            f"| {label} | {medians[case.name] * 1000:.1f} | "
            f"{statistics.median(wall[case.name]) * 1000:.1f} | {ratio:.2f} | "
            f"{medians[case.name] / sqlalchemy_cpu:.2f} | {budget} |"
        )


if __name__ == "__main__":
    main()
