"""What a session has already been given, shared by every injecting hook.

One small file per session, ``.claude/kgraph/sessions/<session_id>.ids``, one item id per
line, and three kinds of marker line: ``#chars N`` for the characters a delivery put into
the session (the hooks share one budget per session, ``session_max_chars``), ``@NAME`` for
what was already looked up (``@file:PATH``: a file recalled once is not recalled again when
the agent reads it again; ``@elsewhere:ID``: an item of a commit the checkout lacks, which
no hook shows; ``@recent-since:T`` and ``@recent:SHA``: the project's latest changes as the
session start found them, kgraph.recall.recent) and ``%KEY KEY ...`` for the words of the
user's prompts (what the session is about: a file read brings the items that share them),
each kept as a short digest of its stem, never as the word (a prompt may hold a secret);
``KEY:0.42`` adds how telling the word is in the store, once a hook has counted it (the
later hooks of the session need not count it again). Hooks append with a single
``O_APPEND`` write (parallel tool calls run their PostToolUse hooks at once; appends of a
few kilobytes do not interleave), read it whole, and never open the database to learn what
they injected: the database's ``sessions.injected_ids`` is filled by the worker from the
queue, for metrics.

After a compaction (or /clear) the conversation no longer holds what was injected, so
session-start starts the file afresh (:func:`forget_all`). Files untouched for a week are
deleted by session-start (:func:`prune`). Stdlib only.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.runtime.state import state_dir

__all__ = [
    "ELSEWHERE",
    "RECENT",
    "RECENT_SINCE",
    "Recent",
    "Seen",
    "forget_all",
    "prune",
    "remember",
    "seen_path",
    "seen_state",
]

MAX_BYTES = 256 * 1024  # ~10,000 ids; a session never gets near it
KEEP_S = 7 * 86_400
ELSEWHERE = "elsewhere:"
RECENT = "recent:"  # a commit of the project's latest changes (its sha, cut)
RECENT_SINCE = "recent-since:"  # when the change before them was made (epoch seconds)


def seen_path(root: Path, session_id: str) -> Path:
    """The session's file (``session_id`` is validated by the hook payload parser)."""
    return state_dir(root) / "sessions" / f"{session_id}.ids"


@dataclass(frozen=True)
class Recent:
    """The project's latest changes as the session start found them: the commits they
    brought (shas cut short) and the commit time they follow (kgraph.recall.recent)."""

    since: float
    shas: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Seen:
    """What a session has been given: item ids, characters, and what was looked up."""

    ids: frozenset[str] = frozenset()
    chars: int = 0
    marks: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()  # keys of the user's prompts' words so far
    rarity: Mapping[str, float] = field(default_factory=dict)  # key -> rarity, once counted

    @property
    def elsewhere(self) -> frozenset[str]:
        """Items the session start found learned from a commit the checkout lacks
        (``@elsewhere:ID``, kgraph.recall.stale.elsewhere): no hook shows them."""
        return frozenset(self._marked(ELSEWHERE))

    @property
    def recent(self) -> Recent | None:
        """The project's latest changes as the session start found them (each start of a
        resumed session adds its own: the latest beginning counts, and every commit); None
        when it did not say (``@recent-since:T``, ``@recent:SHA``)."""
        stamps = (_number(value) for value in self._marked(RECENT_SINCE))
        since = [n for n in stamps if n is not None]  # a resumed session's start adds one
        if not since:
            return None
        return Recent(max(since), frozenset(self._marked(RECENT)))

    def _marked(self, kind: str) -> list[str]:
        """What follows ``kind`` in the marks of that kind (``@elsewhere:ID`` -> ID)."""
        return [m[len(kind) :] for m in self.marks if m.startswith(kind)]


def seen_state(root: Path, session_id: str | None) -> Seen:
    """The session's file read whole (empty without a session id or a file)."""
    if not session_id:
        return Seen()
    try:
        with seen_path(root, session_id).open("rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return Seen()
    ids: set[str] = set()
    marks: set[str] = set()
    words: set[str] = set()
    rarity: dict[str, float] = {}
    chars = 0
    for line in data.decode("utf-8", "replace").split("\n"):
        if line.startswith("#chars "):
            with contextlib.suppress(ValueError):
                chars += max(0, int(line[7:]))
        elif line.startswith("@"):
            marks.add(line[1:])
        elif line.startswith("%"):
            for token in line[1:].split():
                key, _, value = token.partition(":")
                words.add(key)
                if value and (number := _number(value)) is not None:
                    rarity[key] = number
        elif line:
            ids.add(line)
    return Seen(frozenset(ids), chars, frozenset(marks), frozenset(words), rarity)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def remember(
    root: Path,
    session_id: str | None,
    ids: Iterable[str],
    *,
    chars: int = 0,
    marks: Iterable[str] = (),
    words: Iterable[str] = (),
    rarity: Mapping[str, float] | None = None,
) -> None:
    """Append ``ids``, the ``chars`` delivered, ``marks``, prompt ``words`` and the
    ``rarity`` of words counted (by key) to the session's file (one write)."""
    lines = "".join(f"{i}\n" for i in ids if i and "\n" not in i and i[0] not in "#@%")
    lines += f"#chars {chars}\n" if chars > 0 else ""
    lines += "".join(f"@{m}\n" for m in marks if m and "\n" not in m)
    tokens = [w for w in words if _plain(w) and w not in (rarity or {})]
    tokens += [f"{k}:{v:.4g}" for k, v in (rarity or {}).items() if _plain(k) and ":" not in k]
    lines += f"%{' '.join(tokens)}\n" if tokens else ""
    if not session_id or not lines:
        return
    path = seen_path(root, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def _plain(word: str) -> bool:
    return bool(word) and word.isprintable() and not any(c.isspace() for c in word)


def forget_all(root: Path, session_id: str | None) -> None:
    """Start the session's file afresh (its context was compacted or cleared)."""
    if not session_id:
        return
    with contextlib.suppress(OSError):
        seen_path(root, session_id).unlink()


def prune(root: Path, older_than_s: float = KEEP_S) -> int:
    """Delete session files not touched for ``older_than_s``; returns how many."""
    directory = state_dir(root) / "sessions"
    cutoff = time.time() - older_than_s
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".ids") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed
