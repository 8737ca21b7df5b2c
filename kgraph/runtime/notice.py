"""A database problem the user must hear about, told once per session (the latest wording).

Hooks fail open, so a corrupt, unreadable or read-only database would otherwise go unseen:
the briefing is just empty and captures vanish. Whoever meets the problem (a hook, the
capture worker) records it here; the injecting hooks (session-start, user-prompt) turn it
into a short ``systemMessage`` the first time each session runs, and the log keeps one line.

The record holds the database file's stamp (size, mtime, ctime) when the problem was seen:
once the file changes (restored, moved aside, made writable), the problem is forgotten.
Lives in the state folder (or its per-user fallback); imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from kgraph.runtime.state import log_dir

NOTICE_NAME = "problem.json"
MAX_SESSIONS = 50
MAX_MESSAGE_CHARS = 300


def _notice_path(root: Path) -> Path:
    return log_dir(root) / NOTICE_NAME


def _stamp(db_path: Path | None) -> list[int] | None:
    if db_path is None:
        return None
    try:
        info = db_path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def record_problem(root: Path, message: str, db_path: Path | None) -> None:
    """Remember ``message`` (one line) about the database at ``db_path``; never raises."""
    with contextlib.suppress(OSError, ValueError):
        path = _notice_path(root)
        current = _read(path)
        # Until the record is cleared (the problem fixed), the sessions already told are
        # not told again: the hook and the worker word the same problem differently (an
        # unreachable server), and the user hears of it once per session, not per wording.
        line = message.splitlines()[0][:MAX_MESSAGE_CHARS] if message else ""
        told = current.get("told", [])
        _write(
            path,
            {
                "message": line,
                "db": str(db_path) if db_path else None,
                "stamp": _stamp(db_path),
                "at": time.time(),
                "told": told if isinstance(told, list) else [],
            },
        )


def unwritable(db_path: Path | None) -> str | None:
    """Why nothing can be captured into ``db_path`` (the file or its folder is read-only for
    this user), or None. Two ``access`` calls: session-start checks it on every run."""
    if db_path is None:
        return None
    folder = db_path.parent if db_path.parent.is_dir() else db_path.parent.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is read-only: sessions are not captured"
    if db_path.exists() and not os.access(db_path, os.W_OK):
        return f"database {db_path} is read-only: briefings work, sessions are not captured"
    return None


def clear_problem(root: Path) -> None:
    with contextlib.suppress(OSError):
        _notice_path(root).unlink(missing_ok=True)


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def notice_for(root: Path, session_id: str | None) -> str | None:
    """The ``systemMessage`` for this session, or None: no problem, already told, or the
    database file changed since (then the record is dropped). Marks the session as told."""
    path = _notice_path(root)
    try:
        if not path.is_file():
            return None
    except OSError:
        return None
    data = _read(path)
    message = data.get("message")
    if not isinstance(message, str) or not message:
        return None
    db = data.get("db")
    if isinstance(db, str) and _stamp(Path(db)) != data.get("stamp"):
        clear_problem(root)
        return None
    told = data.get("told")
    told = [t for t in told if isinstance(t, str)] if isinstance(told, list) else []
    if session_id is not None:
        if session_id in told:
            return None
        with contextlib.suppress(OSError):
            _write(path, {**data, "told": [*told, session_id][-MAX_SESSIONS:]})
    return f"kgraph: {message}" + ("" if "kgraph doctor" in message else " (see `kgraph doctor`)")


CATCHUP_NAME = "catchup.json"


def note_catchup(root: Path, sessions: int) -> None:
    """Remember that catch-up captured ``sessions`` earlier sessions (added to any count
    not yet told), for the next briefing's header; never raises."""
    with contextlib.suppress(OSError, ValueError):
        path = log_dir(root) / CATCHUP_NAME
        told = _read(path).get("sessions")
        total = sessions + (told if isinstance(told, int) else 0)
        _write(path, {"sessions": total, "at": time.time()})


def take_catchup(root: Path) -> str | None:
    """The line for the next briefing's header when catch-up captured earlier sessions
    since the last one (and forget it: it is said once), else None."""
    path = log_dir(root) / CATCHUP_NAME
    try:
        if not path.is_file():
            return None
        data = _read(path)
        path.unlink(missing_ok=True)
    except OSError:
        return None
    count = data.get("sessions")
    if not isinstance(count, int) or count <= 0:
        return None
    return (
        f"kgraph captured {count} earlier session(s) of this project in the background "
        "(`kgraph transcript sessions` lists them)."
    )
