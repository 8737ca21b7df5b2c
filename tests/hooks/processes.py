"""Running real hook processes and waiting for the detached workers they start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kgraph.runtime import queue
from kgraph.runtime.state import queue_dir


def hook_env(db_path: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "KGRAPH_HOOK_NO_SPAWN"}
    if db_path is not None:
        env["KGRAPH_DB"] = str(db_path)
    return env


def start_hook(
    event: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "kgraph", "hook", event],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload).encode())
    process.stdin.close()
    process.stdin = None  # communicate() must not touch the closed pipe
    return process


def run_hook_process(
    event: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]
) -> tuple[int, str, str]:
    process = start_hook(event, payload, cwd, env)
    out, err = process.communicate(timeout=120)
    return process.returncode, out.decode(), err.decode()


def _workers_running(root: Path) -> bool:
    marker = str(root).encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            data = cmdline.read_bytes()
        except OSError:
            continue
        if b"kgraph.capture.worker" in data and marker in data:
            return True
    return False


def wait_for_workers(root: Path, timeout: float = 180.0, drained: bool = True) -> None:
    """Wait until the queue is drained (unless not ``drained``: a server that is down keeps
    its requests queued) and no worker for ``root`` is running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = (
            queue.pending(root) or list(queue_dir(root).glob("*.claimed-*"))
            if drained and queue_dir(root).is_dir()
            else []
        )
        if not busy and not _workers_running(root):
            return
        time.sleep(0.1)
    raise AssertionError(f"workers for {root} did not finish in {timeout} s")
