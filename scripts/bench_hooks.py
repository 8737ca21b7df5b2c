"""Whole-process time of the Claude Code hooks on a big project, beside `python -c pass` and
`python -c "import sqlalchemy"` measured in the same run.

Builds a temporary git repository whose database holds N learnings (default 10,000, tied to
2,000 files and their code areas) and a code graph of E file-level edges (default 50,000,
with a named function entity at each end), then runs the real ``kgraph hook ...`` processes
R times each and prints min / median / max, and the median as a ratio of both baselines.
Every process reads bytecode, as an installed kgraph does: a temporary PYTHONPYCACHEPREFIX is
filled by a first, untimed round, even when PYTHONDONTWRITEBYTECODE is set in this shell.

- ``post-tool-use``: a Read of a file items are about (a new session each run, so it
  injects), of a file nothing is about (silent), and of a file with items after the
  session's prompt (its items weighed against the prompt's words);
- ``session-start``: with three changed files, and on the clean tree (recent activity);
  each run queues its session record and starts the detached worker, which the bench waits
  for between runs (not timed);
- ``user-prompt``: a prompt naming a function (resolved through the code graph) and words;
  and three hostile prompts: 100 KB without a space, 28 KB of minified JSON naming stored
  files, 10,000 ``(`` (the prompt scanner once backtracked on them for 30-80 s);
- ``session-end``, ``pre-compact``, ``stop``: queue a capture and start the detached worker
  (timed: the hook process only; the bench waits for the worker between runs, untimed);
- ``10 at once``: five session-starts and five session-ends started together.

The injecting hooks read the database with the standard library (no SQLAlchemy import).
Targets (2-core reference machine): post-tool-use <= 0.12 s, session-start <= 0.35 s,
user-prompt <= 0.5 s, capture hooks <= 0.3 s.

Several sizes (``--learnings 10000 100000``) build a project each and interleave their
runs (one round of every hook in each, then the next round), then print each hook's
median in the bigger stores as a ratio of the first's.

Usage:
    python scripts/bench_hooks.py                      # 10000 learnings, 50000 edges, 15 runs
    python scripts/bench_hooks.py --learnings 2000 --edges 10000 --runs 7
    python scripts/bench_hooks.py --learnings 10000 100000 --runs 9   # growth, interleaved
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

AREAS = ["api", "auth", "billing", "core", "db", "jobs", "search", "ui", "util", "reports"]
VERBS = ["retries", "caches", "validates", "serialises", "locks", "paginates", "rounds", "logs"]
TARGETS = {
    "post-tool-use": 0.12,
    "session-start": 0.35,
    "user-prompt": 0.5,
    "session-end": 0.3,
    "pre-compact": 0.3,
    "stop": 0.3,
}
BASELINES = ("python -c pass", "python -c 'import sqlalchemy'")
# Most a hook may grow from the first store size to a bigger one (10,000 -> 100,000 items).
GROWTH_LIMIT = 1.3


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def make_repo(base: Path, files: list[str]) -> Path:
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "feat/4242-bench")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "Bench")
    for path in files[:50]:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "chore: bench project")
    for path in files[:3]:  # the session is working on these
        (repo / path).write_text("x = 2\n")
    return repo


def fill_database(db_url: str, files: list[str], learnings: int, edges: int, seed: int) -> None:
    """Insert the learnings (through the knowledge store's own write path) and graph rows."""
    from sqlalchemy import Table, insert

    from kgraph.db import open_database
    from kgraph.db.models.codegraph import GraphEntity, GraphFile, GraphRelationship
    from kgraph.knowledge.prepare import prepare_item
    from kgraph.knowledge.store import write_item

    rng = random.Random(seed)
    db = open_database(db_url)
    types = ["Learning"] * 7 + ["Mistake"] * 2 + ["Pattern"]
    items = []
    for i in range(learnings):
        path = rng.choice(files)
        area = path.split("/")[1]
        # Each item names one of its file's first functions, as a real item names the code
        # it is about: the prompt hook's items must name the function a prompt names.
        function = function_name(f"{path}::f{rng.randrange(4)}")
        text = (
            f"{area} note {i}: {function} in the {path.rsplit('/', 1)[-1]} module "
            f"{rng.choice(VERBS)} requests because of case {rng.randrange(10**6)}"
        )
        items.append(
            prepare_item(
                text,
                type=rng.choice(types),
                files=[path],
                issue_number=4242 if i % 500 == 0 else None,
                thorough_redaction=False,
            )
        )
    for start in range(0, len(items), 1000):
        batch = items[start : start + 1000]
        db.write(lambda conn, batch=batch: [write_item(conn, item) for item in batch])
    graph_files = GraphFile.__table__
    graph_edges = GraphRelationship.__table__
    graph_entities = GraphEntity.__table__
    assert isinstance(graph_files, Table) and isinstance(graph_edges, Table)
    assert isinstance(graph_entities, Table)
    rows = []
    seen: set[tuple[str, str, str]] = set()
    while len(rows) < edges:
        source, target = rng.sample(files, 2)
        kind = rng.choice(["imports", "calls"])
        key = (f"{source}::f{rng.randrange(20)}", f"{target}::f{rng.randrange(20)}", kind)
        if key in seen:
            continue
        seen.add(key)
        rows.append(
            {
                "from_entity": key[0],
                "to_entity": key[1],
                "type": kind,
                "file_path": source,
                "to_file": target,
                "resolution": "import",
            }
        )

    ends = sorted({r["from_entity"] for r in rows} | {r["to_entity"] for r in rows})
    entities = [
        {
            "id": entity,
            "type": "function",
            "name": function_name(entity),
            "qualified_name": function_name(entity),
            "file_path": entity.split("::")[0],
        }
        for entity in ends
    ]

    def write_graph(conn: Any) -> None:
        conn.execute(
            insert(graph_files),
            [{"path": f, "language": "python", "content_hash": "x"} for f in files],
        )
        for start in range(0, len(rows), 5000):
            conn.execute(insert(graph_edges), rows[start : start + 5000])
        for start in range(0, len(entities), 5000):
            conn.execute(insert(graph_entities), entities[start : start + 5000])

    db.write(write_graph)
    db.close()


def function_name(entity: str) -> str:
    """``src/api/mod_12.py::f3`` -> ``mod_12_f3``: one name per function, as in real code."""
    path, name = entity.split("::")
    return f"{path.rsplit('/', 1)[-1].removesuffix('.py')}_{name}"


def workers_running(root: Path) -> bool:
    marker = str(root).encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"kgraph.capture.worker" in (data := cmdline.read_bytes()) and marker in data:
                return True
        except OSError:
            continue
    return False


def wait_for_workers(root: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    queue = root / ".claude" / "kgraph" / "queue"
    while time.monotonic() < deadline:
        pending = list(queue.glob("*.json*")) if queue.is_dir() else []
        if not pending and not workers_running(root):
            return
        time.sleep(0.05)
    raise RuntimeError("workers did not finish")


HOSTILE = (
    "user-prompt (100 KB, no space)",
    "user-prompt (28 KB minified JSON)",
    "user-prompt (10,000 '(')",
)


def hostile_prompts(files: list[str], n: int) -> dict[str, str]:
    """Prompts a person pastes: a long token, minified JSON naming files, brackets."""
    rng = random.Random(n)
    token = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(100_000))
    records = [
        {"path": files[(n + i) % len(files)], "v": [i, i * 2], "ok": True} for i in range(800)
    ]
    minified = json.dumps(records, separators=(",", ":"))[:28_000]
    return dict(zip(HOSTILE, (token, minified, "(" * 10_000), strict=True))


def timed(
    command: list[str], payload: dict[str, Any] | None, cwd: Path, env: dict[str, str]
) -> tuple[float, str]:
    data = json.dumps(payload).encode() if payload is not None else None
    started = time.perf_counter()
    proc = subprocess.run(command, input=data, capture_output=True, cwd=cwd, env=env, timeout=120)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or proc.stderr:
        raise RuntimeError(f"{command} failed: {proc.returncode} {proc.stderr[:300]!r}")
    return elapsed, proc.stdout.decode()


NAMES = [
    *BASELINES,
    "post-tool-use (file with items)",
    "post-tool-use (nothing about it)",
    "post-tool-use (after a prompt)",
    "session-start (3 changed files)",
    "session-start (clean tree)",
    "user-prompt",
    *HOSTILE,
    "session-end",
    "pre-compact",
    "stop",
]


class Project:
    """One benchmark project: a git repository whose database holds ``learnings`` items,
    and the measurements of its hooks (name -> seconds; name -> characters injected)."""

    def __init__(self, kgraph: str, base: Path, files: list[str], learnings: int, args: Any):
        self.kgraph, self.files, self.learnings = kgraph, files, learnings
        self.repo = make_repo(base, files)
        db_path = self.repo / ".claude" / "execution-state.db"
        self.env = {
            **os.environ,
            "HOME": str(base / "home"),
            "CLAUDE_CONFIG_DIR": str(base / "home" / ".claude"),
            "KGRAPH_EMBEDDER": "fake",
        }
        self.env.pop("KGRAPH_DB", None)
        self.env.pop("KGRAPH_HOOK_NO_SPAWN", None)
        # Hooks read bytecode as an installed kgraph does (pip compiles it at install): with
        # PYTHONDONTWRITEBYTECODE set and no __pycache__ beside the sources, every hook
        # process compiled kgraph's modules, and the bench timed the compiler (see warm_up).
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        self.no_spawn = {**self.env, "KGRAPH_HOOK_NO_SPAWN": "1"}
        (base / "home" / ".claude").mkdir(parents=True)
        t0 = time.perf_counter()
        fill_database(f"sqlite:///{db_path}", files, learnings, args.edges, args.seed)
        print(
            f"setup: {learnings} learnings, {args.edges} graph edges, {len(files)} files "
            f"in {time.perf_counter() - t0:.1f} s ({db_path.stat().st_size / 1e6:.1f} MB)"
        )
        self.transcript = base / "t.jsonl"
        self.transcript.write_text(
            '{"type":"user","message":{"role":"user","content":"hi"}}\n' * 200
        )
        self.results: dict[str, list[float]] = {name: [] for name in NAMES}
        self.sizes: dict[str, list[int]] = {}
        self.concurrent: dict[str, list[float]] = {}

    def run(self, name: str, event: str, payload: dict[str, Any], environ: dict[str, str]) -> None:
        elapsed, out = timed([self.kgraph, "hook", event], payload, self.repo, environ)
        self.results[name].append(elapsed)
        size = len(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else 0
        self.sizes.setdefault(name, []).append(size)

    def read(self, n: int, path: Path) -> dict[str, Any]:
        return {
            "session_id": f"read-{n}",
            "cwd": str(self.repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(path)},
        }

    def warm_up(self, n: int) -> None:
        """One untimed round: bytecode written, the page cache warm."""
        self.round(n)
        self.results = {name: [] for name in NAMES}
        self.sizes = {}

    def round(self, n: int) -> None:
        """Run n of every hook (and the two baselines) once."""
        repo, files, env = self.repo, self.files, self.env
        self.results[BASELINES[0]].append(timed([sys.executable, "-c", "pass"], None, repo, env)[0])
        self.results[BASELINES[1]].append(
            timed([sys.executable, "-c", "import sqlalchemy"], None, repo, env)[0]
        )
        name = "post-tool-use (file with items)"
        self.run(name, "post-tool-use", self.read(n, repo / files[n]), self.no_spawn)
        name = "post-tool-use (nothing about it)"
        self.run(name, "post-tool-use", self.read(n, repo / "NOTES"), self.no_spawn)
        start = {"session_id": f"start-{n}", "cwd": str(repo), "source": "startup"}
        self.run("session-start (3 changed files)", "session-start", start, env)
        wait_for_workers(repo)
        git(repo, "stash", "-q")
        clean = {**start, "session_id": f"clean-{n}"}
        self.run("session-start (clean tree)", "session-start", clean, env)
        wait_for_workers(repo)
        git(repo, "stash", "pop", "-q")
        prompt = (
            f"why does {function_name(files[n + 5] + '::f3')} retry requests in the billing module?"
        )
        # Each prompt in a session of its own: in the session-start's, what the start printed
        # spent most of the session's budget, and a prompt hook with no budget left does
        # nothing, which timed the budget rather than the hook.
        asked = {**start, "session_id": f"prompt-{n}", "prompt": prompt}
        self.run("user-prompt", "user-prompt", asked, self.no_spawn)
        # A read in that session: its items are weighed against the prompt's words.
        after = {**self.read(n, repo / files[n + 1]), "session_id": asked["session_id"]}
        self.run("post-tool-use (after a prompt)", "post-tool-use", after, self.no_spawn)
        for i, (name, text) in enumerate(hostile_prompts(files, n).items()):
            hostile = {**start, "session_id": f"hostile-{n}-{i}", "prompt": text}
            self.run(name, "user-prompt", hostile, self.no_spawn)
        for event in ("session-end", "pre-compact", "stop"):
            payload = {
                "session_id": f"{event}-{n}",
                "cwd": str(repo),
                "transcript_path": str(self.transcript),
                "reason": "other",
                "trigger": "auto",
            }
            self.results[event].append(timed([self.kgraph, "hook", event], payload, repo, env)[0])
            wait_for_workers(repo)

    def bursts(self) -> None:
        for _ in range(3):
            burst = run_concurrently(self.kgraph, self.repo, self.env, self.transcript)
            for event, values in burst.items():
                self.concurrent.setdefault(event, []).extend(values)
            wait_for_workers(self.repo)

    def report(self) -> None:
        results = self.results
        floor = statistics.median(results[BASELINES[0]])
        heavy = statistics.median(results[BASELINES[1]])
        print(
            f"\n{self.learnings} learnings\n{'process':34} {'min':>7} {'median':>7} {'max':>7} "
            f"{'x pass':>7} {'x sqlalchemy':>13} {'target':>9} {'chars':>11}"
        )
        for name, values in results.items():
            target = TARGETS.get(name.split(" ")[0])
            median = statistics.median(values)
            verdict = (
                "" if target is None else f"{target:.2f} {'ok' if median <= target else 'OVER'}"
            )
            chars = self.sizes.get(name)
            shown = f"{min(chars)}-{max(chars)}" if chars else ""
            print(
                f"{name:34} {min(values):7.3f} {median:7.3f} {max(values):7.3f} "
                f"{median / floor:7.1f} {median / heavy:13.2f} {verdict:>9} {shown:>11}"
            )
        for event, values in sorted(self.concurrent.items()):
            print(
                f"{'10 at once: ' + event:34} {min(values):7.3f} "
                f"{statistics.median(values):7.3f} {max(values):7.3f}"
            )


def growth(reference: Project, projects: Sequence[Project]) -> None:
    """Each hook's median in the bigger stores as a ratio of the first's (the runs were
    interleaved, so a change in the machine's load reaches every size alike)."""
    print(f"\nmedian as a ratio of {reference.learnings} learnings' (limit {GROWTH_LIMIT})")
    print(f"{'process':34} " + " ".join(f"{p.learnings:>9}" for p in projects))
    for name in NAMES[len(BASELINES) :]:
        base = statistics.median(reference.results[name])
        ratios = [statistics.median(p.results[name]) / base for p in projects]
        marks = [f"{r:8.2f}{'!' if r > GROWTH_LIMIT else ' '}" for r in ratios]
        print(f"{name:34} " + " ".join(marks))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--learnings", type=int, nargs="+", default=[10_000])
    parser.add_argument("--edges", type=int, default=50_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kgraph", help="kgraph executable (default: the venv's)")
    args = parser.parse_args()

    kgraph = args.kgraph or shutil.which("kgraph") or str(Path(sys.executable).parent / "kgraph")
    base = Path(tempfile.mkdtemp(prefix="kgraph-bench-hooks-"))
    try:
        files = [f"src/{AREAS[i % len(AREAS)]}/mod_{i}.py" for i in range(args.files)]
        projects = []
        for learnings in args.learnings:
            (base / str(learnings)).mkdir()
            projects.append(Project(kgraph, base / str(learnings), files, learnings, args))
        for project in projects:
            project.warm_up(args.runs)
        for n in range(args.runs):
            for project in projects:
                project.round(n)
        for project in projects:
            project.bursts()
            project.report()
        if len(projects) > 1:
            growth(projects[0], projects[1:])
        print(f"\nruns per process: {args.runs}; seconds, whole process; chars: additionalContext")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_concurrently(
    kgraph: str, repo: Path, env: dict[str, str], transcript: Path
) -> dict[str, list[float]]:
    """Wall time of each of ten hook processes started together (one thread each), by hook."""
    from concurrent.futures import ThreadPoolExecutor

    events = ["session-start" if n % 2 == 0 else "session-end" for n in range(10)]

    def one(n: int) -> float:
        payload = {
            "session_id": f"burst-{n}",
            "cwd": str(repo),
            "source": "startup",
            "transcript_path": str(transcript),
            "reason": "other",
        }
        return timed([kgraph, "hook", events[n]], payload, repo, env)[0]

    with ThreadPoolExecutor(max_workers=10) as pool:
        times = list(pool.map(one, range(10)))
    return {e: [t for x, t in zip(events, times, strict=True) if x == e] for e in set(events)}


if __name__ == "__main__":
    main()
