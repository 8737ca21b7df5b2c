"""Worker CPU for capturing a ~4 MB transcript at session end, beside `python -c pass`.

The transcript is the one given, else the largest ``*.jsonl`` under
``../shared/transcripts/`` when it is at least 4 MiB, else one built from real sessions:
the largest capture-dev session plus whole others until it is ≥ 4 MiB, every UUID renumbered
per source session (so entries never collide) and all under one session id.

Each run is a fresh process of the real worker (``python -m kgraph.capture.worker``) on a
fresh copy of a migrated database, applying the request the SessionEnd hook queues
(``final=True``; see ``capture_run.py``); its CPU time (user + system) comes from
``getrusage(RUSAGE_CHILDREN)``. In the same rounds, for reference: ``python -c pass``,
``python -c "import sqlalchemy"`` and ``capture_session`` alone (CPU inside the process,
around the call: the worker's cost without interpreter start and imports).

Every process reads bytecode, as an installed kgraph does (pip compiles it at install): a
temporary PYTHONPYCACHEPREFIX is filled by a first, untimed run, even when
PYTHONDONTWRITEBYTECODE is set in this shell (with it set and no ``__pycache__`` beside the
sources, each worker compiled some 130 kgraph modules, about 0.3 s of its CPU).

The worker embeds what it captured once a session ends (``[capture] embed_captured``);
that is measured apart: the capture runs with it off, then ``embed_missing`` with the real
model (all-MiniLM-L6-v2, its load included) on the items it stored, in a process of its own.

Target: worker CPU median ≤ 1 s, embedding excluded.

Usage:
    python scripts/bench_capture.py                 # built/largest transcript, 5 runs
    python scripts/bench_capture.py PATH.jsonl --runs 9
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

from capture_run import Project, make_project, run_session_end, timed

REPO_ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = REPO_ROOT.parent / "shared" / "transcripts"
MIN_SIZE = 4 * 1024 * 1024
TARGET_S = 1.0
SESSION_ID = "b3c4d5e6-0000-4000-8000-00000000be4c"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# capture_session alone: CPU inside the process around the call (argv: root, url, path, sid)
CAPTURE_ONLY = """
import sys, time
from pathlib import Path
from kgraph.capture.session_capture import capture_session
from kgraph.runtime.settings import load_settings
from kgraph.db import open_database
root, url, path, sid = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
settings = load_settings(root)
db = open_database(url)
start = time.process_time()
result = capture_session(db, root, sid, transcript_path=path, final=True,
                         extractor=settings.extractor,
                         extractor_timeout=settings.extractor_timeout_s)
print(time.process_time() - start, len(result.created))
"""

# The worker's embedding step alone, with the real model (argv: url)
EMBED_ONLY = """
import sys
from kgraph.db import open_database
from kgraph.embeddings import get_embedder
from kgraph.knowledge.backfill import embed_missing
db = open_database(sys.argv[1])
print(embed_missing(db, get_embedder("all-MiniLM-L6-v2")).embedded)
"""


def build_transcript(target: Path, sources: Sequence[Path]) -> list[Path]:
    """Concatenate whole sessions (largest first, then the smallest that reaches MIN_SIZE,
    else the next largest) with renumbered UUIDs; returns the sessions used."""
    remaining = sorted(sources, key=lambda p: p.stat().st_size, reverse=True)
    chosen = [remaining.pop(0)]
    while sum(p.stat().st_size for p in chosen) < MIN_SIZE and remaining:
        missing = MIN_SIZE - sum(p.stat().st_size for p in chosen)
        enough = [p for p in remaining if p.stat().st_size >= missing]
        pick = min(enough, key=lambda p: p.stat().st_size) if enough else remaining[0]
        remaining.remove(pick)
        chosen.append(pick)
    with target.open("w", encoding="utf-8") as out:
        for number, source in enumerate(chosen):
            mapping = {source.stem: SESSION_ID}
            for line in source.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    out.write(_renumber(line, mapping, number) + "\n")
    return chosen


def _renumber(line: str, mapping: dict[str, str], number: int) -> str:
    """Every UUID in ``line`` replaced by one derived from it and its source's ``number``."""

    def replace(match: re.Match[str]) -> str:
        old = match.group(0)
        if old not in mapping:
            mapping[old] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{number}:{old}"))
        return mapping[old]

    return _UUID.sub(replace, line)


def pick_transcript(work: Path) -> tuple[Path, str]:
    found = sorted(TRANSCRIPTS.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    if not found:
        raise SystemExit(f"no transcripts under {TRANSCRIPTS}; pass one")
    if found[-1].stat().st_size >= MIN_SIZE:
        return found[-1], f"largest real transcript {found[-1].name}"
    built = work / f"{SESSION_ID}.jsonl"
    used = build_transcript(built, list((TRANSCRIPTS / "capture-dev").glob("*.jsonl")))
    return built, "built from " + " + ".join(p.name[:8] for p in used)


def session_id_of(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                value = json.loads(line).get("sessionId")
            except (ValueError, AttributeError):
                continue
            if isinstance(value, str) and value:
                return value
    return path.stem


def _fresh(project: Project, template: Path) -> None:
    """Back to the start: the migrated empty database, no queue, lock or log."""
    shutil.copyfile(template, project.db_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{project.db_path}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(project.root / ".claude", ignore_errors=True)
    (project.root / ".claude").mkdir()
    (project.root / ".claude" / "kgraph.toml").write_text("[capture]\nembed_captured = false\n")


def _line(name: str, values: list[float], base: float) -> str:
    median = statistics.median(values)
    return (
        f"{name:<34} median {median:6.3f} s  min {min(values):6.3f}  max {max(values):6.3f}"
        f"  ({median / base:4.1f}x python -c pass)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("transcript", nargs="?", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-embed", action="store_true", help="skip the embedding runs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kgraph-bench-capture-") as tmp:
        work = Path(tmp)
        if args.transcript:
            transcript, origin = args.transcript.resolve(), "given"
        else:
            transcript, origin = pick_transcript(work)
        session_id = session_id_of(transcript)
        project = make_project(work / "project")
        project.env.pop("PYTHONDONTWRITEBYTECODE", None)
        project.env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        template = work / "template.db"
        shutil.copyfile(project.db_path, template)
        size = transcript.stat().st_size
        print(f"transcript: {transcript.name} ({size / 1e6:.2f} MB, {origin})")
        times: dict[str, list[float]] = {
            "pass": [], "sqlalchemy": [], "worker": [], "alone": [], "embed": []
        }  # fmt: skip
        created: set[int] = set()
        python = sys.executable
        _fresh(project, template)  # untimed: fills the bytecode cache
        run_session_end(project, transcript, session_id)
        for _ in range(args.runs):
            times["pass"].append(timed([python, "-c", "pass"], project.env)[0])
            times["sqlalchemy"].append(timed([python, "-c", "import sqlalchemy"], project.env)[0])
            _fresh(project, template)
            run = run_session_end(project, transcript, session_id)
            if run.returncode or run.errors:
                print(f"worker failed: exit {run.returncode}; {run.errors}", file=sys.stderr)
                return 1
            times["worker"].append(run.cpu_s)
            if not args.no_embed:
                embed = [python, "-c", EMBED_ONLY, project.db_url]
                times["embed"].append(timed(embed, project.env, cwd=project.root)[0])
            _fresh(project, template)
            command = [python, "-c", CAPTURE_ONLY, str(project.root), project.db_url]
            proc = _run_capture_only([*command, str(transcript), session_id], project)
            times["alone"].append(proc[0])
            created.add(proc[1])
        base = statistics.median(times["pass"])
        print(f"runs: {args.runs} (fresh process and database each); items created: {created}")
        print(_line("python -c pass", times["pass"], base))
        print(_line('python -c "import sqlalchemy"', times["sqlalchemy"], base))
        print(_line("capture worker (whole process)", times["worker"], base))
        print(_line("capture_session alone (in-process)", times["alone"], base))
        if times["embed"]:
            print(_line("embedding them apart (real model)", times["embed"], base))
        median = statistics.median(times["worker"])
        verdict = "met" if median <= TARGET_S else "MISSED"
        print(f"target: worker CPU median <= {TARGET_S:.1f} s: {median:.3f} s — {verdict}")
        return 0 if median <= TARGET_S else 1


def _run_capture_only(command: list[str], project: Project) -> tuple[float, int]:
    proc = subprocess.run(
        command, env=project.env, cwd=project.root, capture_output=True, text=True, check=True
    )
    seconds, created = proc.stdout.split()
    return float(seconds), int(created)


if __name__ == "__main__":
    raise SystemExit(main())
