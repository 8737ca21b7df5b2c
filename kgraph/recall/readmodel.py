"""The hooks' one read model: a DB-API connection, and the evidence and candidates every
injecting hook ranks.

A hook opens the project database read-only with the standard library
(:func:`open_store`; no SQLAlchemy, no snapshot file to keep fresh). Library code and tests
run the same composition on the driver connection of a SQLAlchemy transaction
(:func:`kgraph.db.reader.raw_connection`), so "the fast path" and "the database path" are
one set of queries (:mod:`kgraph.recall.items`, :mod:`kgraph.codegraph.filedeps`,
:mod:`kgraph.checkpoint.lookup`) and one ranking (:mod:`kgraph.recall.relevance`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgraph.db.location import is_server_url, sqlite_path
from kgraph.db.mirror import mirror_age, note_unreachable, open_mirror, recently_unreachable
from kgraph.db.reader import ReadConnection, open_reader
from kgraph.errors import DatabaseError
from kgraph.knowledge.areas import relative_path
from kgraph.recall import items as recall
from kgraph.recall.evidence import EvidenceSettings, is_weak_file, name_weights, weigh
from kgraph.recall.items import RecallItem
from kgraph.recall.provenance import commit_refs, commit_siblings
from kgraph.recall.relevance import (
    AREA_FACTOR,
    DEPENDENT_FACTOR,
    MIN_EVIDENCE,
    NEIGHBOUR_TYPES,
    Focus,
    Ranked,
)
from kgraph.runtime.seen import Seen
from kgraph.runtime.state import log_warning

__all__ = [
    "RecordedSession",
    "focus_for",
    "gather",
    "has_sessions",
    "held_back",
    "history_shown",
    "latest_sessions",
    "open_store",
    "recent_session_files",
    "session_share",
    "unused_items",
]

# Sessions whose edited files count as recent work, newest first.
RECENT_SESSIONS = 5
# An item shown to this many of the latest UNUSED_WINDOW sessions that did not read or edit
# a file it is about is not shown again (:func:`unused_items`).
UNUSED_AFTER = 2
UNUSED_WINDOW = 10
# Below this many recorded sessions with their files known, no file is a session hub.
MIN_SHARE_SESSIONS = 3


def open_store(
    db_url: str, mirror: Path | None = None, fresh_for: float | None = None
) -> ReadConnection | None:
    """A read-only connection to the project database, or None when there is none usable
    (missing, or at another schema: the worker or a CLI command migrates).

    A server project is read from its local copy in the folder ``mirror`` (kgraph.db.mirror)
    when the copy is at most ``fresh_for`` seconds old (None: any age), else from the server
    through psycopg, without SQLAlchemy (kgraph.db.pgreader); when the server cannot be
    reached, from the copy at any age (logged; the server is not tried again for a minute),
    and only without a copy is that an error.
    """
    if not is_server_url(db_url):
        path = sqlite_path(db_url)
        return None if path is None else open_reader(path)
    if mirror is not None:
        down = recently_unreachable(mirror)
        copy = open_mirror(mirror, db_url, None if down else fresh_for)
        if copy is not None:
            return copy
    from kgraph.db.pgreader import open_pg_reader

    try:
        return open_pg_reader(db_url)
    except DatabaseError as exc:
        stale = None if mirror is None else open_mirror(mirror, db_url)
        if stale is None or mirror is None:
            raise
        note_unreachable(mirror)
        log_warning(
            "%s; reading the local copy of %.0f s ago", exc, mirror_age(mirror, db_url) or 0.0
        )
        return stale


def focus_for(
    conn: ReadConnection,
    settings: EvidenceSettings,
    *,
    files: Mapping[str, float],
    reasons: Mapping[str, str],
    dependents: Mapping[str, int] | None = None,
    areas: tuple[str, ...] = (),
    issue_number: int | None = None,
    inverse_frequency: bool = True,
    at_least: Mapping[str, float] | None = None,
    total: int | None = None,
) -> Focus:
    """The session's focus with evidence weights: each file's rarity among the stored items
    (``inverse_frequency``; else 1) times the weak-file factor, and never below
    ``at_least``'s value for a file it names (times the weak-file factor too). ``total``:
    the number of stored items, when the caller has counted them already."""
    dependents = dict(dependents or {})
    total = recall.item_count(conn) if total is None else total
    paths = [*files, *dependents]
    if inverse_frequency:
        weights = weigh(recall.file_frequencies(conn, paths), total, settings)
    else:
        weights = name_weights(paths, settings)
    for path, floor in name_weights(at_least or {}, settings).items():
        weights[path] = max(weights.get(path, 0.0), floor * (at_least or {})[path])
    if areas:
        weights.update(weigh(recall.area_frequencies(conn, areas), total, settings, paths=False))
    return Focus(
        files=dict(files),
        reasons=dict(reasons),
        dependents=dependents,
        areas=areas,
        issue_number=issue_number,
        weights=weights,
        is_weak=lambda path: is_weak_file(path, settings),
    )


def gather(
    conn: ReadConnection, focus: Focus, most_per_file: int | None = None
) -> list[RecallItem]:
    """Candidate items for ``focus``: those about its files, dependents and areas whose
    evidence could reach MIN_EVIDENCE at all (a hub file's hundreds of items are never
    loaded), and those of its issue. Of a file only a dependent is, only the types ranking
    credits a dependent for (NEIGHBOUR_TYPES); ``most_per_file`` bounds the items taken of
    each file and of the issue, for a caller that keeps only a few per file."""
    files = [f for f, strength in focus.files.items() if strength * focus.weight(f) >= MIN_EVIDENCE]
    neighbours = [
        f
        for f, depth in focus.dependents.items()
        if f not in focus.files
        and DEPENDENT_FACTOR / max(1, depth) * focus.weight(f) >= MIN_EVIDENCE
    ]
    areas = tuple(a for a in focus.areas if AREA_FACTOR * focus.weight(a) >= MIN_EVIDENCE)
    items: list[RecallItem] = []
    if files or areas:
        items += recall.items_about(conn, files, areas, most_per_file=most_per_file)
    if neighbours:
        items += recall.items_about(
            conn, neighbours, types=NEIGHBOUR_TYPES, most_per_file=most_per_file
        )
    if focus.issue_number is not None:
        items += recall.items_of_issue(conn, focus.issue_number, most_per_file)
    return list({item.id: item for item in items}.values())  # an item once


def has_sessions(conn: ReadConnection, exclude_session: str | None = None) -> bool:
    """Whether any session but ``exclude_session`` was ever recorded in this store."""
    row = conn.execute(
        "SELECT 1 FROM sessions WHERE session_id != ? LIMIT 1", (exclude_session or "",)
    ).fetchone()
    return row is not None


def recent_session_files(
    conn: ReadConnection,
    root: Path,
    exclude_session: str | None = None,
    sessions: int = RECENT_SESSIONS,
) -> list[tuple[str, int]]:
    """Files edited in this project's most recent sessions: (repo-relative path, how many
    sessions back it was last edited; 0 = the latest), newest first."""
    rows = conn.execute(
        "SELECT session_id, data FROM sessions WHERE session_id != ? "
        "ORDER BY started_at DESC LIMIT ?",
        (exclude_session or "", sessions),
    ).fetchall()
    found: dict[str, int] = {}
    for rank, (_sid, data) in enumerate(rows):
        try:
            edited = json.loads(data).get("files_edited") if data else None
        except (ValueError, AttributeError):
            edited = None
        for path in edited if isinstance(edited, list) else []:
            if not isinstance(path, str) or not path:
                continue
            relative = relative_path(path, root)
            if not relative.startswith("/") and not relative.startswith(".."):
                found.setdefault(relative, rank)
    return list(found.items())


@dataclass(frozen=True)
class RecordedSession:
    """What a recorded session was shown and what it opened."""

    injected: tuple[str, ...]
    # The repo-relative files it read or edited; None when its transcript was never read (a
    # session known only from what the hooks injected: it crashed before its end, or its
    # transcript is gone), which says nothing of what it opened.
    files: frozenset[str] | None


def _session_files(data: str | None, root: Path) -> frozenset[str] | None:
    try:
        parsed = json.loads(data) if data else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not ({"files_read", "files_edited"} & parsed.keys()):
        return None
    found: set[str] = set()
    for key in ("files_read", "files_edited"):
        paths = parsed.get(key)
        for path in paths if isinstance(paths, list) else []:
            if isinstance(path, str) and path:
                found.add(relative_path(path, root))
    return frozenset(found)


def _injected(text: str | None) -> tuple[str, ...]:
    try:
        ids = json.loads(text) if text else []
    except ValueError:
        ids = []
    if not isinstance(ids, list):
        return ()
    return tuple(dict.fromkeys(i for i in ids if isinstance(i, str)))


def latest_sessions(
    conn: ReadConnection, root: Path, exclude_session: str | None = None
) -> list[RecordedSession]:
    """The project's latest UNUSED_WINDOW recorded sessions but ``exclude_session``, newest
    first: what :func:`unused_items` and :func:`session_share` weigh (a hook reads them once)."""
    rows = conn.execute(
        "SELECT injected_ids, data FROM sessions WHERE session_id != ? "
        "ORDER BY started_at DESC LIMIT ?",
        (exclude_session or "", UNUSED_WINDOW),
    ).fetchall()
    return [RecordedSession(_injected(ids), _session_files(data, root)) for ids, data in rows]


def session_share(sessions: Sequence[RecordedSession], path: str) -> float:
    """The share of ``sessions`` (those whose files are known) that read or edited ``path``;
    0.0 under MIN_SHARE_SESSIONS of them."""
    known = [s.files for s in sessions if s.files is not None]
    if len(known) < MIN_SHARE_SESSIONS:
        return 0.0
    return sum(1 for files in known if path in files) / len(known)


def unused_items(conn: ReadConnection, sessions: Sequence[RecordedSession]) -> set[str]:
    """Items shown to UNUSED_AFTER or more of ``sessions`` (:func:`latest_sessions`) that did
    not read or edit a file the item is about (a session whose transcript was never read
    does not count: nothing says what it opened).

    Replaying real sessions, a broad item that a prompt's file names or words matched came
    back session after session, to work it had nothing to do with; an item that was shown
    and then left alone has said what it could. A session that opened one of its files used
    it, but that does not make it bear on the next one: an item about a project's central
    files (opened by most sessions) reached five of nine replayed sessions and helped one,
    though two of them never opened its files."""
    shown: dict[str, list[frozenset[str]]] = {}  # item id -> the files of each session shown it
    for session in sessions:
        if session.files is None:
            continue
        for item_id in session.injected:
            shown.setdefault(item_id, []).append(session.files)
    often = [i for i, files in shown.items() if len(files) >= UNUSED_AFTER]
    items = recall.load_items(conn, often) if often else {}
    return {
        item_id
        for item_id, item in items.items()
        if sum(1 for files in shown[item_id] if files.isdisjoint(item.files)) >= UNUSED_AFTER
    }


def held_back(
    conn: ReadConnection,
    root: Path,
    session_id: str | None,
    state: Seen,
    sessions: Sequence[RecordedSession] | None = None,
) -> set[str]:
    """What the session ``session_id``'s next recall leaves out (its prompt and file hooks,
    and ``Project.recall`` given its id): the items its ``state`` says it was given, those
    its start found on another branch, those shown unused to the project's latest other
    ``sessions`` (:func:`latest_sessions` unless given; :func:`unused_items`), and the other
    parts of a commit it was shown one part of
    (:func:`kgraph.recall.provenance.commit_siblings`)."""
    if sessions is None:
        sessions = latest_sessions(conn, root, session_id)
    given = sorted(state.ids)
    return (
        set(given)
        | set(state.elsewhere)
        | unused_items(conn, sessions)
        | commit_siblings(conn, given)
    )


def one_part_each(conn: ReadConnection, ranked: Sequence[Ranked]) -> list[Ranked]:
    """``ranked`` with only the best-ranked of the parts a long commit message was cut
    into (``source_ref`` "<sha>:<n>"): the parts share the commit's files, so one read
    could bring two, spending two of the hook's few places on one change, as
    :func:`held_back` keeps a later hook from doing (seen replaying ebridges/wakil, where
    a read of ``release.yml`` brought two parts of one fix's message)."""
    learned = commit_refs(conn, [r.item.id for r in ranked])
    commits: set[str] = set()
    kept: list[Ranked] = []
    for entry in ranked:
        commit = learned.get(entry.item.id)
        if commit is not None:
            if commit.sha in commits:
                continue
            commits.add(commit.sha)
        kept.append(entry)
    return kept


def history_shown(conn: ReadConnection, sessions: Sequence[RecordedSession]) -> set[str]:
    """Items learned from a commit that one of ``sessions`` was shown: a file read does not
    bring them again.

    A commit's message is history ``git log`` keeps, and the file read that shows it also
    counts as opening its file, so :func:`unused_items` never sees it left alone. Over
    three replays (41 real sessions) the file hook brought such an item to a session that
    an earlier one had been shown it 7 times, useful once. A prompt's own words asking for
    it again weigh more: of 3 such showings, 1 was useful, so the prompt hook keeps them."""
    shown = {item_id for session in sessions for item_id in session.injected}
    return set(commit_refs(conn, list(shown))) if shown else set()
