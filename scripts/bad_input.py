"""Every command with bad values: counts "internal error"s, tracebacks and unexpected exits.

Builds a temporary git project with a database holding a workflow, a milestone, learnings
and a parsed code graph, plus hostile files (binary, gzip, FIFO, /dev/zero, a damaged
database, one from a newer kgraph, a foreign SQLite file), then runs the real ``kgraph``
entry point once per (command, slot, bad value): integers of 2**63 and beyond, NaN, huge
and empty strings, bytes that are not UTF-8, JSON nested 5,000 deep or holding lone
surrogates, 100,000-character patterns, paths that are missing, folders, FIFOs or devices,
and ``--db`` values that cannot be databases.

A run passes when it exits 0, 1 or 2 within the time limit, and neither "internal error" nor
"Traceback" appears in its output. Prints the totals and every failure; exits 1 if any.

Usage:
    python scripts/bad_input.py              # all cases, 3 at a time
    python scripts/bad_input.py --jobs 2 --only graph --verbose
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

Arg = str | bytes
TIMEOUT_S = 90.0

INTS: list[Arg] = [
    "9223372036854775808",  # 2**63
    "18446744073709551616",  # 2**64
    "-9223372036854775809",
    "1" + "0" * 30,
    "-1",
    "0",
    "nan",
    "1e400",
    "abc",
    "0x10",
    "",
]
TEXTS: list[Arg] = [
    "",
    " ",
    "x" * 100_000,
    b"caf\xff\xfe",  # not UTF-8: the process sees lone surrogates
    "'; DROP TABLE workflows; --",
    "%_%",
    '"unbalanced',
    "NOT AND OR *",
    "line\nbreak",
    "\u202eevil",
    "-",
]
JSONS: list[Arg] = [
    "{",
    "[1, 2]",
    '"text"',
    '{"a": ' * 5000 + "1" + "}" * 5000,
    "[" * 5000 + "]" * 5000,
    '{"a": NaN}',
    '{"a": 1e999}',
    '{"\\ud800": 1}',
    '{"a": "\\udfff"}',
    json.dumps({f"k{i}": "v" * 100 for i in range(1_000)}),
]


@dataclass
class Fixture:
    base: Path
    repo: Path
    db: Path
    workflow: str
    milestone: str
    learning: str
    learning2: str
    transcript: Path
    paths: list[Arg]
    dbs: list[Arg]


@dataclass
class Outcome:
    label: str
    code: int | None
    internal: bool
    traceback: bool
    first_line: str
    more_lines: bool = False  # an "Error: ..." message that goes on over more lines

    @property
    def failed(self) -> bool:
        return self.code not in (0, 1, 2) or self.internal or self.traceback or self.more_lines


def env_for(fixture: Fixture) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
    env.update(
        KGRAPH_DB=str(fixture.db),
        KGRAPH_EMBEDDER="fake",
        KGRAPH_HOOK_NO_SPAWN="1",
        HOME=str(fixture.base / "home"),
        CLAUDE_CONFIG_DIR=str(fixture.base / "home" / ".claude"),
    )
    return env


def kgraph(fixture: Fixture, *args: Arg, stdin: bytes | None = None) -> tuple[int | None, str]:
    argv = [os.fsencode(a) if isinstance(a, str) else a for a in args]
    try:
        proc = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"kgraph", *argv],
            cwd=fixture.repo,
            env=env_for(fixture),
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT_S,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None, "timed out"
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    return proc.returncode, out


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(base: Path) -> Fixture:
    repo = base / "repo"
    repo.mkdir()
    (base / "home").mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text(
        "def helper():\n    return 1\n\n\ndef main():\n    return helper()\n"
    )
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    db = repo / ".claude" / "execution-state.db"
    fixture = Fixture(base, repo, db, "", "", "", "", base / "t.jsonl", [], [])

    def made(*args: str) -> str:
        code, out = kgraph(fixture, *args, "--json")
        assert code == 0, (args, out)
        return str(json.loads(out)["id"])

    fixture.workflow = made("workflow", "create", "7", "feat/7-x")
    fixture.milestone = made("milestone", "create", "v1")
    fixture.learning = made("learn", "helper() returns one because callers count on it")
    fixture.learning2 = made("learn", "main() calls helper() to keep one source of truth")
    assert kgraph(fixture, "graph", "parse", ".")[0] == 0
    fixture.transcript.write_text(
        json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}})
        + "\n"
    )
    files = base / "files"
    files.mkdir()
    (files / "binary.bin").write_bytes(os.urandom(4096) + b"\x00\xff" * 100)
    with gzip.open(files / "archive.tar.gz", "wb") as handle:
        handle.write(fixture.transcript.read_bytes() * 200)
    (files / "empty.jsonl").write_bytes(b"")
    os.mkfifo(files / "fifo")
    os.symlink("/dev/urandom", files / "char-device")  # endless, like /dev/zero
    (files / "folder").mkdir()
    os.symlink(files / "loop-b", files / "loop-a")  # a symlink loop
    os.symlink(files / "loop-a", files / "loop-b")
    surrogates = files / "surrogates.jsonl"  # half a UTF-16 pair, as JSON may escape it
    surrogates.write_text(
        '{"content": "retry \\ud800 twice", "type": "user", "message": {"role": "user", '
        '"content": "hi \\udfff"}}\n'
    )
    corrupt = files / "corrupt.db"
    shutil.copy(db, corrupt)
    size = corrupt.stat().st_size
    with corrupt.open("r+b") as handle:
        handle.seek(8192)
        handle.write(os.urandom(size - 8192))
    newer = files / "newer.db"
    shutil.copy(db, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    foreign = files / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE workflows (x)")
    fixture.paths = [
        "/nonexistent-dir/x.jsonl",
        str(files / "folder"),
        "/dev/zero",
        "/dev/urandom",
        str(files / "fifo"),
        str(files / "char-device"),
        str(files / "binary.bin"),
        str(files / "archive.tar.gz"),
        str(files / "empty.jsonl"),
        os.fsencode(str(files)) + b"/\xff.jsonl",
        str(files / "loop-a"),
        str(surrogates),
        "a" * 5_000,
        "",
    ]
    fixture.dbs = [
        "nosuchdb://",
        "postgresql://user:pw@127.0.0.1:1/x",
        "sqlite:///nonexistent-dir/x.db",
        "/nonexistent-dir/x.db",
        str(files / "folder"),
        str(files / "fifo"),
        "/dev/zero",
        "/dev/urandom",
        str(files / "binary.bin"),
        str(corrupt),
        str(newer),
        str(foreign),
        "sqlite://",
    ]
    return fixture


def cases(f: Fixture) -> list[tuple[str, list[Arg], bytes | None]]:
    """(label, argv, stdin): one bad value in one slot of one command each."""
    ms, wf, lrn = f.milestone, f.workflow, f.learning
    baseline = [
        "--lint-exit-code",
        "0",
        "--lint-warnings",
        "0",
        "--lint-errors",
        "0",
        "--typecheck-exit-code",
        "0",
        "--typecheck-errors",
        "0",
    ]
    int_slots: list[list[Arg]] = [
        ["workflow", "create", "{}", "feat/x"],
        ["workflow", "find", "{}"],
        ["workflow", "list", "--limit", "{}"],
        ["workflow", "cleanup", "--older-than", "{}", "--dry-run"],
        ["milestone", "create", "m", "--github-number", "{}"],
        ["milestone", "add-workflow", ms, wf, "--wave", "{}"],
        ["learn", "a fact about the loader", "--issue", "{}"],
        ["learn", "a fact about the loader", "--confidence", "{}"],
        ["search", "helper", "--limit", "{}"],
        ["knowledge", "query", "--issue", "{}"],
        ["knowledge", "list", "--limit", "{}"],
        ["knowledge", "related", lrn, "--hops", "{}"],
        ["knowledge", "prune", "--min-confidence", "{}"],
        ["knowledge", "prune", "--stale-days", "{}"],
        ["transcript", "show", str(f.transcript), "--tail", "{}"],
        ["graph", "parse", ".", "--jobs", "{}"],
        ["graph", "blast-radius", "main", "--depth", "{}"],
        ["graph", "find", "main", "--limit", "{}"],
        ["graph", "what-depends-on", "app.py", "--depth", "{}"],
        ["metrics", "summary", "--days", "{}"],
        ["metrics", "sessions", "--limit", "{}"],
        ["embed", "--batch-size", "{}"],
    ]
    for index in range(1, len(baseline), 2):
        values: list[Arg] = list(baseline)
        values[index] = "{}"
        int_slots.append(["baseline", "save", ms, *values])
    text_slots: list[list[Arg]] = [
        ["workflow", "create", "1", "{}"],
        ["workflow", "create", "1", "feat/1", "--worktree", "{}"],
        ["workflow", "get", "{}"],
        ["workflow", "log-action", wf, "{}", "success"],
        ["workflow", "log-commit", wf, "{}", "a message"],
        ["workflow", "log-commit", wf, "abc123", "{}"],
        ["workflow", "set-phase", wf, "{}"],
        ["milestone", "create", "{}"],
        ["milestone", "find", "{}"],
        ["learn", "{}"],
        ["learn", "a fact about the loader", "--code-area", "{}"],
        ["learn", "a fact about the loader", "--file", "{}"],
        ["search", "{}"],
        ["knowledge", "query", "--file", "{}"],
        ["knowledge", "show", "{}"],
        ["knowledge", "related", "{}"],
        ["knowledge", "link", "{}", "RELATED_TO", lrn],
        ["knowledge", "forget", f.learning2, "--reason", "{}"],
        ["graph", "what-calls", "{}"],
        ["graph", "blast-radius", "{}"],
        ["graph", "find", "{}"],
        ["graph", "exports", "{}"],
        ["graph", "what-depends-on", "{}"],
        ["transcript", "stats", "{}"],
        ["viz", "--focus", "{}"],
        ["workflow", "set-status", wf, "{}"],
        ["workflow", "delete", "{}"],
        ["milestone", "set-phase", ms, "{}"],
        ["milestone", "set-status", ms, "{}"],
        ["milestone", "get", "{}"],
        ["milestone", "delete", "{}"],
        ["baseline", "show", "{}"],
        ["knowledge", "supersede", "{}", lrn],
        ["knowledge", "restore", "{}"],
        ["knowledge", "query", "--code-area", "{}"],
        ["graph", "callers", "{}"],
        ["knowledge", "review", "--accept", "{}"],
        ["knowledge", "review", "--reject", "{}"],
    ]
    path_slots: list[list[Arg]] = [
        ["knowledge", "import", "{}"],
        ["knowledge", "export", "--output", "{}"],
        ["transcript", "stats", "{}"],
        ["transcript", "show", "{}"],
        ["transcript", "qa", "{}"],
        ["transcript", "mistakes", "{}"],
        ["transcript", "subagents", "{}"],
        ["transcript", "status", "--session", "{}"],
        ["transcript", "sessions", "--project", "{}"],
        ["graph", "parse", "{}"],
        ["knowledge", "sync-claude-md", "--project", "{}"],
        ["viz", "--output", "{}"],
        ["graph", "parse", ".", "--root", "{}"],
        ["learn", "a fact about the loader", "--file", "{}"],
    ]
    db_commands: list[list[Arg]] = [
        ["workflow", "list"],
        ["knowledge", "list"],
        ["learn", "a fact about the loader"],
        ["graph", "summary"],
        ["metrics", "summary"],
        ["search", "helper"],
        ["doctor", "--no-hook-run"],
    ]
    out: list[tuple[str, list[Arg], bytes | None]] = []
    # Never a device as a file to write: run as root, a regression would replace it.
    write_paths = [p for p in f.paths if not str(p).startswith("/dev/")]

    def fill(slot: list[Arg], value: Arg) -> list[Arg]:
        return [value if part == "{}" else part for part in slot]

    def label(slot: list[Arg], value: Arg) -> str:
        shown = repr(value if len(value) <= 40 else value[:20] + value[-5:])
        return " ".join(str(p) for p in slot if p != "{}" and len(str(p)) < 40) + f" <- {shown}"

    for slot in int_slots:
        out += [(label(slot, v), fill(slot, v), None) for v in INTS]
    for slot in text_slots:
        out += [(label(slot, v), fill(slot, v), None) for v in TEXTS]
    for slot in path_slots:
        values = write_paths if "--output" in slot else f.paths
        out += [(label(slot, v), fill(slot, v), None) for v in values]
    metadata = ["workflow", "log-action", wf, "checked", "success", "--metadata", "{}"]
    out += [(label(metadata, v), fill(metadata, v), None) for v in JSONS]
    for db in f.dbs:
        for command in db_commands:
            out.append((f"--db {db!r} {' '.join(map(str, command))}", ["--db", db, *command], None))
    binary = (f.base / "files" / "binary.bin").read_bytes()
    out.append(("knowledge import - <- binary stdin", ["knowledge", "import", "-"], binary))
    for value in JSONS:  # each bad JSON as a line on stdin
        text = value if isinstance(value, str) else value.decode("utf-8", "replace")
        out.append(
            (f"knowledge import - <- {text[:30]!r}", ["knowledge", "import", "-"], text.encode())
        )
    return out


def run_case(fixture: Fixture, case: tuple[str, list[Arg], bytes | None]) -> Outcome:
    name, argv, stdin = case
    if isinstance(stdin, str):
        stdin = stdin.encode()
    code, out = kgraph(fixture, *argv, stdin=stdin)
    lines = [line for line in out.splitlines() if line.strip()]
    error = next((line for line in lines if line.startswith("Error")), lines[0] if lines else "")
    errors = [line for line in lines if line.startswith("Error")]
    multi = len(errors) == 1 and code != 0 and not out.rstrip().endswith(errors[0].rstrip())
    return Outcome(name, code, "internal error" in out, "Traceback" in out, error[:160], multi)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--only", help="only cases whose label contains this")
    parser.add_argument("--verbose", action="store_true", help="print every run")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="kgraph-bad-input-"))
    started = time.monotonic()
    try:
        fixture = build(base)
        todo = [c for c in cases(fixture) if not args.only or args.only in c[0]]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(pool.map(lambda c: run_case(fixture, c), todo))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    failures = [o for o in outcomes if o.failed]
    for outcome in outcomes if args.verbose else failures:
        print(f"{'FAIL' if outcome.failed else 'ok  '} exit {outcome.code}: {outcome.label}")
        if outcome.first_line:
            print(f"      {outcome.first_line}")
    exits: dict[str, int] = {}
    for outcome in outcomes:
        exits[str(outcome.code)] = exits.get(str(outcome.code), 0) + 1
    print(
        f"{len(outcomes)} runs in {time.monotonic() - started:.0f} s: "
        f"{sum(o.internal for o in outcomes)} internal errors, "
        f"{sum(o.traceback for o in outcomes)} tracebacks, "
        f"{sum(o.more_lines for o in outcomes)} errors over several lines, "
        f"{sum(o.code not in (0, 1, 2) for o in outcomes)} other exits "
        f"({sum(o.code is None for o in outcomes)} hung); exit codes "
        + ", ".join(f"{k}: {v}" for k, v in sorted(exits.items()))
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
