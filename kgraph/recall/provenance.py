"""Where a stored item came from, read from its row: the commit it was learned from (its
``source_ref``), and what its data recorded then (the code its files held, the lines its
commit wrote, the kind of text it was cut from).

Recall uses these to weigh an item beyond its words and files: a commit's later parts, a
commit older than the latest changes (kgraph.recall.recent), code that has changed since
(kgraph.recall.stale), and the kinds shown only where they name the code at hand
(:func:`named_only`) or left to the prompt (:func:`lists_changes`). Standard library only,
over a DB-API connection, as kgraph.recall.items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from kgraph.db.reader import ReadConnection, chunked, marks, parse_time

__all__ = [
    "NAMED_ONLY_ORIGINS",
    "FromCommit",
    "commit_items",
    "commit_refs",
    "commit_siblings",
    "held_code",
    "learned_from_commit",
    "lists_changes",
    "named_only",
    "written_keys",
]

# A commit named in ``source_ref``: "<sha>", or "<sha>:<issue>" for an item of one.
_SHA = re.compile(r"[0-9a-f]{7,40}")


def commit_items(conn: ReadConnection, most: int) -> dict[str, str]:
    """Id -> commit sha of the ``most`` newest visible items learned from a commit."""
    rows = conn.execute(
        "SELECT id, source_ref FROM entities WHERE source = 'commit' AND hidden_at IS NULL "
        "ORDER BY created_at DESC LIMIT ?",
        (most,),
    )
    return {str(item_id): sha for item_id, ref in rows if (sha := _commit_sha(ref))}


@dataclass(frozen=True)
class FromCommit:
    """The commit an item was learned from, and when (the commit's time; for a commit only
    a session's transcript knows, the transcript's time: kgraph.capture.session_write)."""

    sha: str
    at: datetime | None


def commit_refs(conn: ReadConnection, ids: Sequence[str]) -> dict[str, FromCommit]:
    """Id -> the commit of those of ``ids`` learned from one."""
    found: dict[str, FromCommit] = {}
    for part in chunked(list(ids)):
        rows = conn.execute(
            f"SELECT id, source_ref, created_at FROM entities WHERE source = 'commit' "
            f"AND id IN ({marks(len(part))})",
            tuple(part),
        )
        for item_id, ref, created in rows:
            if sha := _commit_sha(ref):
                found[str(item_id)] = FromCommit(sha, parse_time(created))
    return found


def commit_siblings(conn: ReadConnection, ids: Sequence[str]) -> set[str]:
    """The other items learned from the commits some of ``ids`` were learned from: the
    parts a long message was cut into (``source_ref`` "<sha>:<n>").

    A session shown one part has met the commit; its other parts tell the same change's
    details. Replaying real sessions, such a later part was junk 6 times in 8 (a change
    list's next bullet) and useful once."""
    shas = {ref.sha for ref in commit_refs(conn, ids).values()}
    found: set[str] = set()
    for sha in sorted(shas):  # "<sha>" and "<sha>:..." sort in [sha, sha + ";")
        rows = conn.execute(
            "SELECT id FROM entities WHERE source = 'commit' AND source_ref >= ? "
            "AND source_ref < ?",
            (sha, sha + ";"),
        )
        found.update(str(item_id) for (item_id,) in rows)
    return found - set(ids)


def _commit_sha(ref: object) -> str | None:
    """The commit an item's ``source_ref`` names, when it names one."""
    sha = str(ref or "").split(":", 1)[0]
    return sha if _SHA.fullmatch(sha) else None


def _decoded(data: object) -> dict[str, object]:
    """An item's data as a dict: JSON text in SQLite, decoded by psycopg, or a library
    item's dict; {} when it is none of them."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError:
            return {}
    return data if isinstance(data, dict) else {}


def held_code(data: object) -> tuple[str, ...] | None:
    """``data["code"]`` of an item's data: the code names its files held when it was
    captured; None when it was stored before capture recorded them."""
    code = _decoded(data).get("code")
    if not isinstance(code, list):
        return None
    return tuple(name for name in code if isinstance(name, str))


def written_keys(data: object) -> tuple[str, ...] | None:
    """``data["wrote"]`` of an item's data: the keys of the lines its commit wrote
    (:func:`kgraph.knowledge.codenames.written_lines`); None when none were recorded."""
    wrote = _decoded(data).get("wrote")
    if not isinstance(wrote, list):
        return None
    return tuple(key for key in wrote if isinstance(key, str))


def learned_from_commit(data: object) -> bool:
    """Whether an item's data says it was cut from a commit message (origin "commit…" or
    "history…"): text that describes the code its commit left, name by name."""
    origin = _decoded(data).get("origin")
    return isinstance(origin, str) and origin.split(".", 1)[0] in {"commit", "history"}


# Commits answering a code review ("Address PR review feedback: …"): replaying real
# sessions, a whole-file read or a word of the prompt brought them 23 times, useful once.
# Commits whose message only lists what changed ("- Change X to Y"; origin "commit.what",
# kgraph.capture.sources.commit_items.explains_why): in replayed sessions 20 of 139 were useful
# and 31 junk, against 15 and 5 of 83 for messages that say why. Both are shown only when
# they name the code at hand: a name the prompt writes. (Capture now keeps "what" commits as
# candidates, kgraph.capture.gate.candidates; this holds for those a project stored before.)
NAMED_ONLY_ORIGINS = frozenset({"commit.review", "history.review", "commit.what", "history.what"})
_NAMED_ONLY_MARKS = tuple(f'"{origin}"' for origin in NAMED_ONLY_ORIGINS)


def named_only(item: object) -> bool:
    """Whether ``item`` (a RecallItem, or a library item with its ``data``) is shown only
    when it names the code at hand (NAMED_ONLY_ORIGINS). The JSON is decoded only when its
    text holds one of those origins: a hook weighs hundreds of items."""
    data = getattr(item, "data", None)
    if isinstance(data, str) and not any(mark in data for mark in _NAMED_ONLY_MARKS):
        return False
    return _decoded(data).get("origin") in NAMED_ONLY_ORIGINS


# A commit message whose body lists its changes, three entries or more ("- ", "* ", "1. "),
# tells of a change as a whole: a file hook shows it only where a prompt's words pick it
# (kgraph.recall.file). Replaying real sessions of ten repositories, the 35 such items
# a file read brought were useful 3 times and junk 16 times (the prompt hook: 9 and 3 of 24).
MIN_ENTRIES = 3
_ENTRY = re.compile(r"(?:^|\s)(?:[-*\u2022]|\d{1,2}[.)])\s+(?=\S)")
_COMMIT_MARKS = ('"commit', '"history')


def lists_changes(item: object) -> bool:
    """Whether ``item`` (a RecallItem, or a library item with its ``data``) is a commit's
    message whose body (what follows its subject) lists MIN_ENTRIES entries or more."""
    data = getattr(item, "data", None)
    if isinstance(data, str) and not any(mark in data for mark in _COMMIT_MARKS):
        return False
    content = str(getattr(item, "content", ""))
    body = content.partition("\n")[2] or content
    return len(_ENTRY.findall(body)) >= MIN_ENTRIES and learned_from_commit(data)
