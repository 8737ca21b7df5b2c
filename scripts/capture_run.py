"""Running the real capture worker on one transcript in a throwaway project (for the capture
scripts: ``capture_eval.py`` and ``bench_capture.py``).

A throwaway project is a temp git repository (``git init``, one empty commit) with its own
SQLite database, HOME and Claude config folder, so nothing real is read or written. A capture
is queued exactly as the SessionEnd hook queues it (``queue_capture`` in
``kgraph/hooks/capture_hooks.py``: a ``capture`` request with ``final=True``) and applied by
the real detached worker, ``python -m kgraph.capture.worker --root ROOT --db URL``, run here
in the foreground so its CPU time can be read from ``getrusage(RUSAGE_CHILDREN)``. The
transcript's own working directory is not the temp repo's: mapping its paths is capture's
job, as it is in real use.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Project", "WorkerRun", "children_cpu", "make_project", "run_session_end", "timed"]

WORKER_TIMEOUT_S = 600


@dataclass(frozen=True)
class Project:
    root: Path  # the git repository
    db_path: Path
    env: dict[str, str]  # environment for the worker: temp HOME, no KGRAPH_DB

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.db_path}"

    @property
    def log_path(self) -> Path:
        return self.root / ".claude" / "kgraph" / "hook.log"


@dataclass(frozen=True)
class WorkerRun:
    cpu_s: float  # user + system CPU of the worker process
    returncode: int
    errors: tuple[str, ...]  # ERROR lines the worker logged during this run


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, int]:
    """Run ``command`` to its end; returns (its CPU seconds, its exit code)."""
    before = children_cpu()
    proc = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, timeout=WORKER_TIMEOUT_S, check=False
    )
    return children_cpu() - before, proc.returncode


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_project(base: Path, *, create_db: bool = True) -> Project:
    """A git repo with one empty commit under ``base``, and (unless told not to) its database
    created and migrated, so a worker run measures capture, not the first migration."""
    root = base / "repo"
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "eval@example.com")
    _git(root, "config", "user.name", "Eval")
    _git(root, "config", "commit.gpgsign", "false")
    _git(root, "commit", "-q", "--allow-empty", "-m", "chore: empty")
    home = base / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
    # The hashing embedder: the worker embeds what it captured (kgraph.capture.worker), and
    # the real model would add its load to every capture measured here.
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), KGRAPH_EMBEDDER="fake")
    project = Project(root=root, db_path=base / "state" / "kgraph.db", env=env)
    if create_db:
        from kgraph.db import open_database

        project.db_path.parent.mkdir(parents=True)
        open_database(project.db_url).close()
    return project


def transcript_cwd(transcript: Path) -> str | None:
    """The working directory the transcript's first entry names (what the hook payload has)."""
    with transcript.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("cwd"), str):
                return str(entry["cwd"])
    return None


def queue_session_end(project: Project, transcript: Path, session_id: str) -> None:
    """The request the SessionEnd hook writes (see kgraph.hooks.capture_hooks.queue_capture)."""
    from kgraph.runtime.queue import enqueue

    enqueue(
        project.root,
        "capture",
        session_id=session_id,
        cwd=transcript_cwd(transcript) or str(project.root),
        transcript_path=str(transcript),
        transcript_size=transcript.stat().st_size,
        event="session-end",
        reason="other",
        final=True,
    )


def _log_errors(project: Project, skip: int) -> tuple[list[str], int]:
    try:
        lines = project.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return [], 0
    return [line for line in lines[skip:] if "ERROR" in line], len(lines)


def run_session_end(project: Project, transcript: Path, session_id: str) -> WorkerRun:
    """Queue the session-end capture of ``transcript`` and run the worker to its end."""
    _, seen = _log_errors(project, 0)
    queue_session_end(project, transcript, session_id)
    command = [
        sys.executable,
        "-m",
        "kgraph.capture.worker",
        "--root",
        str(project.root),
        "--db",
        project.db_url,
    ]
    cpu, code = timed(command, project.env, cwd=project.root)
    errors, _ = _log_errors(project, seen)
    return WorkerRun(cpu_s=cpu, returncode=code, errors=tuple(errors))
