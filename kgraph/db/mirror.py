"""The hooks' local copy of a server project: a SQLite file the worker refreshes.

On PostgreSQL a hook that read the server would pay for psycopg's import (~0.13 s) and the
network's round trips on every file the agent touches: more than the hooks' budgets. So the
hooks read a *mirror*: a kgraph SQLite database of the same schema, in the project's state
folder (``.claude/kgraph/mirror.db``, ignored by git), holding the server's rows that the
read model needs (kgraph.db.mirror_sync copies them). The read model runs the same SQL on
it as on any SQLite database (DESIGN: "make the fast path a cache of its rows").

How fresh it is, and who refreshes it:

- a stamp beside it (``mirror.json``) records which server and project it copies (a digest
  of the URL: a copy of another project is never read) and when it was refreshed;
- the capture worker refreshes it whenever it runs on a server (after every capture);
- a hook that finds it older than :data:`REFRESH_AFTER_S` asks for a refresh (a ``refresh``
  request and a detached worker; at most once per :data:`REFRESH_AFTER_S`);
- the file hook and the prompt hook read it at any age; session-start reads it only when
  it is at most ``server_copy_max_age_s`` old (``[hooks]`` setting, default 120 s: after a
  compaction, a resumed session), and otherwise reads the server, so a new session's
  briefing has what teammates captured since; when the server cannot be reached, the copy
  at any age (stale beats nothing).

Standard library only: this is on every hook's path.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.db.reader import open_reader
from kgraph.digest import sha256_hex

__all__ = [
    "MIRROR_FILE",
    "REFRESH_AFTER_S",
    "STAMP_FILE",
    "UNREACHABLE_FOR_S",
    "MirrorStamp",
    "mirror_age",
    "note_unreachable",
    "open_mirror",
    "read_stamp",
    "recently_unreachable",
    "refresh_due",
    "source_key",
    "write_stamp",
]

MIRROR_FILE = "mirror.db"
STAMP_FILE = "mirror.json"
REQUEST_FILE = "mirror.requested"
UNREACHABLE_FILE = "server.unreachable"
# A hook asks the worker to refresh a copy older than this (and asks at most this often).
REFRESH_AFTER_S = 60.0
# After a hook failed to reach the server, hooks read the copy without trying for this long
# (a server that does not answer costs a connect timeout of seconds each time).
UNREACHABLE_FOR_S = 60.0


@dataclass(frozen=True)
class MirrorStamp:
    """What the mirror copies and when: ``source`` is :func:`source_key` of the server URL,
    ``refreshed_at`` a ``time.time()`` taken before the server was read, and
    ``fingerprints`` each table group's server-side summary at that refresh (a group whose
    summary did not move is not copied again)."""

    source: str
    refreshed_at: float
    fingerprints: dict[str, str] = field(default_factory=dict)


def source_key(url: str) -> str:
    """A digest of the server URL (its project included): names the copy without storing
    the URL, which may hold a password."""
    return sha256_hex(url.encode("utf-8", "surrogatepass"))[:24]


def read_stamp(folder: Path) -> MirrorStamp | None:
    """The stamp in ``folder``, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads((folder / STAMP_FILE).read_text(encoding="utf-8"))
        prints = data.get("fingerprints") or {}
        return MirrorStamp(
            source=str(data["source"]),
            refreshed_at=float(data["refreshed_at"]),
            fingerprints={str(k): str(v) for k, v in prints.items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_stamp(folder: Path, stamp: MirrorStamp) -> None:
    """Replace the stamp atomically (a hook never reads half of one)."""
    staged = folder / f"{STAMP_FILE}.{os.getpid()}.tmp"
    staged.write_text(
        json.dumps(
            {
                "source": stamp.source,
                "refreshed_at": stamp.refreshed_at,
                "fingerprints": stamp.fingerprints,
            }
        ),
        encoding="utf-8",
    )
    os.replace(staged, folder / STAMP_FILE)
    with contextlib.suppress(OSError):  # a refresh reached the server
        (folder / UNREACHABLE_FILE).unlink()


def note_unreachable(folder: Path) -> None:
    """Remember that the server could not be reached (see :func:`recently_unreachable`)."""
    with contextlib.suppress(OSError):
        (folder / UNREACHABLE_FILE).touch()


def recently_unreachable(folder: Path, now: float | None = None) -> bool:
    """True within :data:`UNREACHABLE_FOR_S` of a failed attempt (and no refresh since)."""
    try:
        noted = (folder / UNREACHABLE_FILE).stat().st_mtime
    except OSError:
        return False
    return (time.time() if now is None else now) - noted <= UNREACHABLE_FOR_S


def mirror_age(folder: Path, url: str, now: float | None = None) -> float | None:
    """Seconds since the copy of ``url`` in ``folder`` was refreshed; None when there is no
    copy of that server and project."""
    stamp = read_stamp(folder)
    if stamp is None or stamp.source != source_key(url):
        return None
    if not (folder / MIRROR_FILE).is_file():
        return None
    return max(0.0, (time.time() if now is None else now) - stamp.refreshed_at)


def open_mirror(
    folder: Path, url: str, max_age_s: float | None = None
) -> sqlite3.Connection | None:
    """A read-only connection to the copy of ``url`` in ``folder``; None when there is none,
    it copies another server or project, or it is older than ``max_age_s`` (None: any age).

    A copy that cannot be read (damaged, not SQLite) is a cache miss, not an error: its
    stamp is dropped, so the next hook asks for a refresh and the worker builds it anew."""
    age = mirror_age(folder, url)
    if age is None or (max_age_s is not None and age > max_age_s):
        return None
    from kgraph.errors import DatabaseError

    try:
        return open_reader(folder / MIRROR_FILE)
    except DatabaseError:
        with contextlib.suppress(OSError):
            (folder / STAMP_FILE).unlink()
        return None


def refresh_due(folder: Path, url: str, now: float | None = None) -> bool:
    """True when a hook should ask for a refresh: the copy is missing or older than
    :data:`REFRESH_AFTER_S`, and nobody asked within that time. Marks the request (the
    caller queues it), so concurrent hooks ask once. ``folder`` must exist."""
    moment = time.time() if now is None else now
    age = mirror_age(folder, url, moment)
    if age is not None and age <= REFRESH_AFTER_S:
        return False
    marker = folder / REQUEST_FILE
    try:
        if moment - marker.stat().st_mtime <= REFRESH_AFTER_S:
            return False
    except OSError:
        pass
    try:
        marker.touch()
        os.utime(marker, (moment, moment))
    except OSError:
        return False
    return True
