"""Starting the capture worker fully detached from the hook that asked for it.

Claude Code reads a hook's stdout/stderr to EOF, so a child that inherited them would keep
the hook "running" (claude-code-contracts §1.8). The worker gets a new session, /dev/null
for stdin and a log file for stdout/stderr, and no other inherited descriptors.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kgraph.db.location import DB_ENV_VAR, is_server_url
from kgraph.runtime.state import ensure_state_dir

WORKER_OUT = "worker.out"
WORKER_OUT_MAX_BYTES = 1_000_000
NO_SPAWN_ENV = "KGRAPH_HOOK_NO_SPAWN"


def worker_command(root: Path, db_url: str | None = None) -> list[str]:
    """The worker's argv: this interpreter running ``kgraph.capture.worker``."""
    command = [sys.executable, "-m", "kgraph.capture.worker", "--root", str(root)]
    if db_url:
        command += ["--db", db_url]
    return command


def spawn_worker(root: Path, db_url: str | None = None) -> int | None:
    """Start a detached worker for the project at ``root``; returns its pid.

    Returns None without starting anything when ``KGRAPH_HOOK_NO_SPAWN=1`` (tests that
    drive the worker themselves). Raises OSError when the process cannot be started.
    """
    if os.environ.get(NO_SPAWN_ENV):
        return None
    directory = ensure_state_dir(root)
    out = directory / WORKER_OUT
    try:
        if out.stat().st_size > WORKER_OUT_MAX_BYTES:
            out.unlink()
    except OSError:
        pass
    env = dict(os.environ)
    env["KGRAPH_WORKER"] = "1"
    if db_url and is_server_url(db_url):
        # A server URL may hold a password: the environment, not the command line that
        # any user of the machine can list.
        env[DB_ENV_VAR] = db_url
        db_url = None
    with out.open("ab") as log:
        log.write(f"--- worker started {time.strftime('%Y-%m-%dT%H:%M:%S')}\n".encode())
        log.flush()
        detach: dict[str, Any] = {"start_new_session": True}
        if sys.platform == "win32":  # pragma: no cover
            detach = {
                "creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
            }
        process = subprocess.Popen(
            worker_command(root, db_url),
            cwd=str(root),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            env=env,
            **detach,
        )
    return int(process.pid)
