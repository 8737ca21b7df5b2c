"""The capture queue: small JSON request files that hooks write and the worker drains.

A capture hook must return in well under 0.3 s, so it never opens the database: it writes
one request file here (atomically: temp file + rename) and starts the detached worker. The
worker *claims* a request by renaming it (only one process can win a rename), processes
it, then deletes it. A claim whose worker died (its pid, in the claimed name, is gone) is
returned to the queue by the next worker; any claim older than ``STALE_CLAIM_S`` too (a pid
reused by another process). Imports nothing heavy.

Kinds:
- ``start``    a session-start record the hook could not write in its budget;
- ``injected`` ids injected by a user-prompt hook that could not write in its budget;
- ``capture``  capture a session's commits and transcript (pre-compact, stop, session-end);
- ``catchup``  capture this project's earlier transcripts never captured.
- ``refresh``  refresh the local copy of a server project that the hooks read (kgraph.db.mirror).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgraph.runtime.state import ensure_state_dir, queue_dir

KINDS = ("start", "injected", "capture", "catchup", "refresh")
STALE_CLAIM_S = 900.0
_CLAIM_MARK = ".claimed-"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Request:
    """One queued request. ``fields`` holds everything the hook recorded (session_id, cwd,
    transcript_path, event, reason, transcript_size, branch, head, ...)."""

    kind: str
    created: float
    fields: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def session_id(self) -> str | None:
        value = self.fields.get("session_id")
        return value if isinstance(value, str) and value else None


def enqueue(root: Path, kind: str, **fields: Any) -> Path:
    """Write a request file; returns its path. Raises OSError when the folder is unwritable."""
    if kind not in KINDS:
        raise ValueError(f"unknown request kind {kind!r}")
    ensure_state_dir(root)
    directory = queue_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    now = time.time()
    sid = _UNSAFE.sub("_", str(fields.get("session_id") or "-"))[:64]
    name = f"{time.time_ns():020d}-{kind}-{sid}-{os.getpid()}"
    body = json.dumps({"kind": kind, "created": now, "fields": fields}, default=str)
    tmp = directory / f".{name}.tmp"
    tmp.write_text(body, encoding="utf-8")
    final = directory / f"{name}.json"
    os.replace(tmp, final)
    return final


def _read(path: Path) -> Request | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        return None
    fields = data.get("fields")
    created = data.get("created")
    return Request(
        kind=str(data["kind"]),
        created=float(created) if isinstance(created, int | float) else 0.0,
        fields=fields if isinstance(fields, dict) else {},
        path=path,
    )


def _claimer_gone(claimed: Path) -> bool:
    """True when the process that claimed this request no longer exists (it was killed:
    its claim is returned at once instead of after STALE_CLAIM_S)."""
    try:
        pid = int(claimed.name.rsplit(_CLAIM_MARK, 1)[1])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def _requeue_stale(directory: Path, now: float) -> None:
    """Return to the queue claims older than STALE_CLAIM_S, and those of dead workers."""
    for claimed in directory.glob(f"*.json{_CLAIM_MARK}*"):
        try:
            if now - claimed.stat().st_mtime > STALE_CLAIM_S or _claimer_gone(claimed):
                os.replace(claimed, claimed.with_name(claimed.name.split(_CLAIM_MARK)[0]))
        except OSError:
            continue


def pending(root: Path) -> list[Path]:
    """Unclaimed request files, oldest first."""
    directory = queue_dir(root)
    if not directory.is_dir():
        return []
    return sorted(directory.glob("*.json"))


def claim_all(root: Path) -> list[Request]:
    """Claim every unclaimed request (oldest first). Unreadable files are deleted."""
    directory = queue_dir(root)
    if not directory.is_dir():
        return []
    now = time.time()
    _requeue_stale(directory, now)
    claimed: list[Request] = []
    for path in pending(root):
        target = path.with_name(f"{path.name}{_CLAIM_MARK}{os.getpid()}")
        try:
            os.rename(path, target)
            os.utime(target, (now, now))
        except OSError:
            continue  # another worker won it
        request = _read(target)
        if request is None:
            target.unlink(missing_ok=True)
            continue
        claimed.append(request)
    return claimed


def finish(requests: list[Request]) -> None:
    """Delete processed requests."""
    for request in requests:
        if request.path is not None:
            request.path.unlink(missing_ok=True)


def release(requests: list[Request]) -> None:
    """Put claimed requests back in the queue (processing failed; try again later)."""
    for request in requests:
        if request.path is None:
            continue
        original = request.path.with_name(request.path.name.split(_CLAIM_MARK)[0])
        try:
            os.replace(request.path, original)
        except OSError:
            continue
