"""kill -9 in the middle of `graph parse`, a capture worker, `learn` and `embed`, N rounds each.

Each round starts the real process, kills it with SIGKILL at a random moment of its run
(somewhere in the time a clean run takes), then runs the same work again to the end, as
the next command or hook would, and checks what it left:

- parse: the pool workers of the killed parse are gone within a few seconds, the next parse
  returns (a hung parse is one still running after --timeout seconds), the database passes
  ``PRAGMA integrity_check``, and the graph has exactly the entities and edges of a clean
  parse of the same tree;
- capture: the database passes the integrity check, the queue is empty, and the knowledge
  items (ids and seen counts) are exactly those of a clean capture of the same transcript:
  no item counted twice, none missing;
- learn: the integrity check, one entity and one FTS row per text, no duplicate edges;
- embed: the integrity check, and every item's vector, seen count and near-duplicate merge
  (what supersedes it) exactly those of a clean embed of the same items.

Usage:
    python scripts/fault_inject.py                    # 10 rounds each
    python scripts/fault_inject.py --rounds 20 --only parse --seed 7
    python scripts/fault_inject.py --rounds 5 --only embed
    python scripts/fault_inject.py --only capture --transcript a.jsonl --transcript b.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHARED_TRANSCRIPTS = Path(__file__).resolve().parents[2] / "shared" / "transcripts" / "capture-dev"
DB_RELATIVE = Path(".claude") / "execution-state.db"
PARSE_MODULES = 4000  # a cold parse of a few seconds on 2 cores, most of it in pool workers


@dataclass
class Tally:
    name: str
    rounds: int = 0
    killed: int = 0  # killed before it finished (the others finished first)
    hung: int = 0
    orphans: int = 0
    integrity: int = 0
    duplicates: int = 0
    missing: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return self.hung + self.orphans + self.integrity + self.duplicates + self.missing

    def line(self) -> str:
        return (
            f"{self.name}: {self.rounds} rounds ({self.killed} killed mid-run): "
            f"{self.hung} hung, {self.orphans} orphaned workers, {self.integrity} integrity "
            f"failures, {self.duplicates} duplicate counts, {self.missing} missing"
        )


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
    env.update(
        KGRAPH_EMBEDDER="fake",
        KGRAPH_HOOK_NO_SPAWN="1",  # no detached workers: the script runs them itself
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
    )
    return env


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=f", "-c", "user.email=f@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def make_repo(base: Path, name: str, modules: int) -> Path:
    """A git repository of ``modules`` small Python modules that call each other."""
    repo = base / name
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for i in range(modules):
        callees = [f"f{(i * 7 + k) % modules}" for k in range(1, 6)]
        imports = "\n".join(f"from pkg.m{c[1:]} import {c}" for c in callees)
        body = "\n".join(
            f"class C{i}_{j}:\n    def run(self, x):\n        return {callees[j % 5]}(x) + {j}\n"
            for j in range(6)
        )
        (repo / "pkg" / f"m{i}.py").write_text(
            f"{imports}\n\n\ndef f{i}(x):\n    return x + {i}\n\n\n{body}\n"
        )
    (repo / "pkg" / "__init__.py").write_text("")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    return repo


def kgraph(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgraph", *args]


def integrity_ok(db: Path) -> bool:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    except sqlite3.Error:
        return False


def fresh_database(repo: Path, env: dict[str, str]) -> Path:
    shutil.rmtree(repo / ".claude", ignore_errors=True)
    subprocess.run(kgraph("workflow", "list"), cwd=repo, env=env, check=True, capture_output=True)
    return repo / DB_RELATIVE


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def run_and_kill(
    argv: list[str], cwd: Path, env: dict[str, str], delay: float
) -> tuple[bool, set[int]]:
    """Start ``argv``, SIGKILL it after ``delay`` s; (killed before it ended, its children
    at the moment of the kill)."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + delay
    seen: set[int] = set()
    while time.monotonic() < deadline and process.poll() is None:
        seen |= children(process.pid)
        time.sleep(0.01)
    if process.poll() is not None:
        return False, set()
    seen |= children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return True, seen


def timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> float | None:
    started = time.monotonic()
    try:
        subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - started


# -- parse ---------------------------------------------------------------------------------
def graph_counts(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as conn:
        entities = conn.execute("SELECT count(*) FROM graph_entities").fetchone()[0]
        edges = conn.execute("SELECT count(*) FROM graph_relationships").fetchone()[0]
    return int(entities), int(edges)


def parse_rounds(
    base: Path, env: dict[str, str], rounds: int, rng: random.Random, timeout: float
) -> Tally:
    tally = Tally("parse")
    repo = make_repo(base, "parse-repo", PARSE_MODULES)
    parse = kgraph("graph", "parse", ".", "--jobs", "2")
    db = fresh_database(repo, env)
    clean = timed(parse, repo, env, timeout)
    assert clean is not None, "a clean parse did not finish"
    expected = graph_counts(db)
    tally.notes.append(f"a clean parse of {PARSE_MODULES} modules: {expected} in {clean:.1f} s")
    for _ in range(rounds):
        tally.rounds += 1
        db = fresh_database(repo, env)
        killed, workers = run_and_kill(parse, repo, env, rng.uniform(0.05, clean))
        tally.killed += killed
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if alive(p)]
        tally.orphans += len(left)
        finished = timed(parse, repo, env, timeout)  # (run() kills it at the timeout)
        for pid in left:  # clean up after a failure, so the next round is independent
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if finished is None:
            tally.hung += 1
            tally.notes.append(f"the parse after the kill did not return in {timeout:g} s")
            continue
        tally.integrity += not integrity_ok(db)
        counts = graph_counts(db)
        if counts != expected:
            tally.duplicates += counts[1] > expected[1] or counts[0] > expected[0]
            tally.missing += counts[1] < expected[1] or counts[0] < expected[0]
            tally.notes.append(f"graph {counts} after the kill, {expected} clean")
    return tally


# -- capture -------------------------------------------------------------------------------
def synthetic_transcript(path: Path, cwd: str, session_id: str) -> None:
    """A session with explanations, a failure and its fix (when no real one is at hand)."""
    lines: list[dict[str, object]] = []
    parent: str | None = None
    for n in range(200):
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        if n % 4 == 0:
            message: dict[str, object] = {
                "role": "user",
                "content": f"Why does step {n} of the loader fail on Windows?",
            }
            kind = "user"
        else:
            message = {
                "id": f"msg_{n}",
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": f"The issue was that step {n} opened pkg/m{n % 40}.py with the "
                        f"locale encoding, because the default is cp1252 on Windows; "
                        f"it now reads UTF-8 (case {n}).",
                    }
                ],
                "stop_reason": "end_turn",
            }
            kind = "assistant"
        lines.append(
            {
                "parentUuid": parent,
                "type": kind,
                "uuid": uuid,
                "sessionId": session_id,
                "cwd": cwd,
                "gitBranch": "main",
                "timestamp": f"2026-02-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                "message": message,
            }
        )
        parent = uuid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def knowledge_items(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT id, seen_count FROM entities WHERE type IN "
            "('Learning', 'Pattern', 'Mistake', 'Topic')"
        ).fetchall()
    return {str(i): int(n) for i, n in rows}


def capture_rounds(
    base: Path,
    env: dict[str, str],
    rounds: int,
    rng: random.Random,
    timeout: float,
    transcripts: list[Path],
) -> Tally:
    """Each round queues a capture of every transcript (one session each) and kills the
    worker draining them; the next worker must end with the items of a clean run."""
    tally = Tally("capture")
    repo = make_repo(base, "capture-repo", 40)
    sessions: list[tuple[str, Path]] = []
    for index, source in enumerate(transcripts):
        session = f"fault-capture-{index}"
        path = base / f"{session}.jsonl"
        shutil.copy(source, path)
        sessions.append((session, path))
    if not sessions:
        path = base / "fault-capture-0.jsonl"
        synthetic_transcript(path, str(repo), "fault-capture-0")
        sessions.append(("fault-capture-0", path))
    worker = [sys.executable, "-m", "kgraph.capture.worker", "--root", str(repo)]

    def queue_captures() -> None:
        for session, path in sessions:
            payload = {
                "session_id": session,
                "cwd": str(repo),
                "transcript_path": str(path),
                "reason": "other",
            }
            subprocess.run(
                kgraph("hook", "session-end"),
                cwd=repo,
                env=env,
                input=json.dumps(payload),
                text=True,
                check=True,
                capture_output=True,
            )

    db = fresh_database(repo, env)
    queue_captures()
    clean = timed(worker, repo, env, timeout)
    assert clean is not None, "a clean capture did not finish"
    expected = knowledge_items(db)
    tally.notes.append(
        f"a clean capture of {len(sessions)} sessions stores {len(expected)} items in {clean:.1f} s"
    )
    for _ in range(rounds):
        tally.rounds += 1
        db = fresh_database(repo, env)
        queue_captures()
        killed, _ = run_and_kill(worker, repo, env, rng.uniform(0.05, clean))
        tally.killed += killed
        if timed(worker, repo, env, timeout) is None:  # the next worker, as a hook starts
            tally.hung += 1
            continue
        tally.integrity += not integrity_ok(db)
        queue = repo / ".claude" / "kgraph" / "queue"
        if queue.is_dir() and any(queue.iterdir()):
            tally.missing += 1
            tally.notes.append(f"queue not empty: {sorted(p.name for p in queue.iterdir())}")
        got = knowledge_items(db)
        tally.duplicates += sum(1 for k, n in got.items() if n > expected.get(k, 0))
        tally.duplicates += len(set(got) - set(expected))
        tally.missing += len(set(expected) - set(got))
    return tally


# -- embed ---------------------------------------------------------------------------------
def embed_state(db: Path) -> dict[str, tuple[Any, ...]]:
    """Per item: has a vector, seen count, and the item superseding it (a merge)."""
    with sqlite3.connect(db) as conn:
        merged = dict(
            conn.execute(
                "SELECT to_id, from_id FROM relationships WHERE type = 'SUPERSEDES'"
            ).fetchall()
        )
        rows = conn.execute(
            "SELECT id, embedding IS NOT NULL, seen_count FROM entities WHERE type = 'Learning'"
        ).fetchall()
    return {str(i): (bool(v), int(n), merged.get(i)) for i, v, n in rows}


def embed_rounds(
    base: Path, env: dict[str, str], rounds: int, rng: random.Random, timeout: float
) -> Tally:
    """3,000 learnings, one in ten with a near-twin (one word changed); each round kills
    `kgraph embed` and runs it again, as the next worker would."""
    tally = Tally("embed")
    repo = make_repo(base, "embed-repo", 10)
    items = base / "items.jsonl"
    lines = []
    for i in range(3000):
        words = [f"w{rng.randrange(100_000)}" for _ in range(30)]
        lines.append({"content": f"item {i}: " + " ".join(words)})
        if i % 10 == 0:
            lines.append({"content": f"item {i}: " + " ".join([*words[:-1], "twin"])})
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    embed = kgraph("embed", "--batch-size", "64")

    def fresh() -> Path:
        db = fresh_database(repo, env)
        subprocess.run(
            kgraph("knowledge", "import", str(items)), cwd=repo, env=env, check=True,
            capture_output=True,
        )  # fmt: skip
        return db

    db = fresh()
    clean = timed(embed, repo, env, timeout)
    assert clean is not None, "a clean embed did not finish"
    expected = embed_state(db)
    twins = sum(1 for _v, _n, by in expected.values() if by)
    tally.notes.append(f"a clean embed of {len(expected)} items merges {twins} in {clean:.1f} s")
    for _ in range(rounds):
        tally.rounds += 1
        db = fresh()
        killed, _ = run_and_kill(embed, repo, env, rng.uniform(0.05, clean))
        tally.killed += killed
        if timed(embed, repo, env, timeout) is None:
            tally.hung += 1
            continue
        tally.integrity += not integrity_ok(db)
        got = embed_state(db)
        wrong = sorted(k for k in expected if got.get(k) != expected[k])
        tally.missing += len(wrong)
        if wrong:
            tally.notes.append(f"{len(wrong)} items differ, e.g. {wrong[0]}: {got.get(wrong[0])}")
    return tally


# -- learn ---------------------------------------------------------------------------------
def learn_rounds(
    base: Path, env: dict[str, str], rounds: int, rng: random.Random, timeout: float
) -> Tally:
    tally = Tally("learn")
    repo = make_repo(base, "learn-repo", 20)
    db = fresh_database(repo, env)
    clean = timed(kgraph("learn", "a first fact so the database is warm"), repo, env, timeout)
    assert clean is not None
    for index in range(rounds):
        tally.rounds += 1
        text = f"Round {index}: pkg/m{index % 20}.py retries the write because the lock is busy"
        argv = kgraph("learn", text, "--file", f"pkg/m{index % 20}.py", "--code-area", "Pkg")
        killed, _ = run_and_kill(argv, repo, env, rng.uniform(0.05, clean * 1.2))
        tally.killed += killed
        if timed(argv, repo, env, timeout) is None:
            tally.hung += 1
            continue
        tally.integrity += not integrity_ok(db)
        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT id FROM entities WHERE type = 'Learning' AND content = ?", (text,)
            ).fetchall()
            fts = conn.execute(
                "SELECT count(*) FROM entities_fts WHERE entity_id = ?",
                (rows[0][0] if rows else "",),
            ).fetchone()[0]
            twins = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM entities GROUP BY type, content_hash "
                "HAVING count(*) > 1)"
            ).fetchone()[0]
            edges = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM relationships GROUP BY from_id, to_id, type "
                "HAVING count(*) > 1)"
            ).fetchone()[0]
        tally.missing += not rows
        tally.duplicates += (len(rows) > 1) + (fts > 1) + twins + edges
        tally.missing += bool(rows) and fts == 0
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--only", choices=("parse", "capture", "learn", "embed"))
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds before 'hung'")
    parser.add_argument(
        "--transcript",
        type=Path,
        action="append",
        help="transcript to capture, repeatable (default: every session in "
        "../shared/transcripts/capture-dev, else a synthetic one)",
    )
    args = parser.parse_args()
    transcripts = args.transcript or (
        sorted(SHARED_TRANSCRIPTS.glob("*.jsonl")) if SHARED_TRANSCRIPTS.is_dir() else []
    )
    rng = random.Random(args.seed)
    base = Path(tempfile.mkdtemp(prefix="kgraph-faults-"))
    (base / "home").mkdir()
    env = environment(base / "home")
    started = time.monotonic()
    tallies: list[Tally] = []
    try:
        if args.only in (None, "parse"):
            tallies.append(parse_rounds(base, env, args.rounds, rng, args.timeout))
        if args.only in (None, "capture"):
            tallies.append(capture_rounds(base, env, args.rounds, rng, args.timeout, transcripts))
        if args.only in (None, "learn"):
            tallies.append(learn_rounds(base, env, args.rounds, rng, args.timeout))
        if args.only in (None, "embed"):
            tallies.append(embed_rounds(base, env, args.rounds, rng, args.timeout))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for tally in tallies:
        print(tally.line())
        for note in tally.notes[:10]:
            print(f"    {note}")
    used = len(transcripts) or "a synthetic"
    print(f"total {time.monotonic() - started:.0f} s, {used} transcript(s)")
    return 1 if any(t.failures for t in tallies) else 0


if __name__ == "__main__":
    raise SystemExit(main())
