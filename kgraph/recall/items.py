"""The knowledge read model the hooks and the library share: typed items and the queries
that find them, over a DB-API connection (``sqlite3``, or psycopg through
kgraph.db.pgreader; stdlib only).

Hooks open the connection themselves (:func:`kgraph.db.reader.open_reader`); library code
passes the driver connection of its SQLAlchemy transaction
(:func:`kgraph.db.reader.raw_connection`). Either way the same SQL runs, so there is one
implementation of "which items are about these files, areas, issue or words".

Only visible items are returned: knowledge types, not forgotten, not superseded.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kgraph.db.fts import (
    PG_COUNT,
    PG_LEXICAL,
    SQLITE_COUNT,
    SQLITE_LEXICAL,
    match_expression,
    prefix_tsquery,
    tsquery_expression,
)
from kgraph.db.reader import ReadConnection, chunked, is_postgres, marks, parse_time
from kgraph.knowledge.areas import normalise_path
from kgraph.knowledge.model import KNOWLEDGE_TYPES, content_hash
from kgraph.recall.relevance import standing

__all__ = [
    "RecallItem",
    "area_frequencies",
    "file_frequencies",
    "item_count",
    "item_texts",
    "items_about",
    "items_of_issue",
    "lexical_ids",
    "load_items",
    "project_rules",
    "stored_files",
    "term_frequencies",
]

TARGET_EDGES = ("ABOUT", "IN_FILE", "APPLIES_TO")
FILE_EDGES = ("IN_FILE", "APPLIES_TO")
AREA_EDGES = ("ABOUT", "APPLIES_TO")
LEXICAL_POOL = 300
# Lookups by id check the type in Python, not in SQL: given ``type IN (...)`` too, SQLite's
# planner (without statistics) prefers the (type, hidden_at) index to the primary key and
# scans every item of the type — 11 ms instead of 0.4 ms for 300 ids among 10,000 learnings.
_KNOWLEDGE = frozenset(KNOWLEDGE_TYPES)
_STRUCTURAL = frozenset({"CodeArea", "File"})
_TYPES = ",".join(f"'{t}'" for t in KNOWLEDGE_TYPES)


@dataclass(frozen=True)
class RecallItem:
    """A knowledge item as ranking and the injected blocks need it."""

    id: str
    type: str
    content: str
    confidence: float
    issue_number: int | None
    code_areas: tuple[str, ...]
    files: tuple[str, ...]
    updated_at: datetime | None
    seen_count: int = 1
    # The data column as read (JSON text in SQLite), decoded only for what asks for it: of
    # the hundreds of items a hook loads, the stale check reads a few.
    # (:func:`kgraph.recall.provenance.held_code` reads the code names recorded there.)
    data: object = field(default=None, compare=False, repr=False)


def _edge_list(types: Sequence[str]) -> str:
    return ",".join(f"'{t}'" for t in types)


def _structural(conn: ReadConnection, type_: str, names: Iterable[str]) -> dict[str, str]:
    """Entity id -> name of the File/CodeArea entities named ``names`` (by content hash)."""
    by_hash = {content_hash(n, type_): n for n in names if n}
    found: dict[str, str] = {}
    hashes = list(by_hash)
    for part in chunked(hashes):
        for entity_id, digest in conn.execute(
            f"SELECT id, content_hash FROM entities WHERE type = ? "
            f"AND content_hash IN ({marks(len(part))})",
            (type_, *part),
        ):
            found[entity_id] = by_hash[digest]
    return found


def _linked(
    conn: ReadConnection, target_ids: Sequence[str], edges: Sequence[str]
) -> dict[str, set[str]]:
    """from_id -> the ``target_ids`` it is linked to by ``edges``."""
    out: dict[str, set[str]] = {}
    for part in chunked(list(target_ids)):
        for from_id, to_id in conn.execute(
            f"SELECT from_id, to_id FROM relationships WHERE to_id IN ({marks(len(part))}) "
            f"AND type IN ({_edge_list(edges)})",
            tuple(part),
        ):
            out.setdefault(from_id, set()).add(to_id)
    return out


def _select(
    conn: ReadConnection,
    linked: Mapping[str, set[str]],
    most: int | None,
    types: frozenset[str] | None,
) -> set[str]:
    """Of the items in ``linked`` (id -> the files it is linked to), those of ``types``
    (any when None), at most ``most`` per file: those ranking puts first among the items of
    one file (:func:`kgraph.recall.relevance.standing`: Mistakes, then Patterns, then the
    rest; then confidence and recency).

    A file a store holds hundreds of items about (a core module, at 100,000 items) made
    every briefing load and rank them all, to keep a few per file. Reading four columns of
    each first costs a fraction of loading it whole."""
    if most is None and types is None:
        return set(linked)
    now = datetime.now(UTC)
    order: dict[str, float] = {}
    for part in chunked(list(linked)):
        rows = _visible_by_id(conn, "id, type, confidence, updated_at", part)
        for item_id, type_, confidence, updated in rows:
            if types is None or type_ in types:
                when = parse_time(updated)
                value = standing(str(type_), confidence, when, now)  # type: ignore[arg-type]
                order[str(item_id)] = -value
    if most is None:
        return set(order)
    per_target: dict[str, list[tuple[float, str]]] = {}
    for item_id, targets in linked.items():
        if item_id in order:
            for target in targets:
                per_target.setdefault(target, []).append((order[item_id], item_id))
    return {
        item_id for entries in per_target.values() for _, item_id in heapq.nsmallest(most, entries)
    }


def _visible_by_id(
    conn: ReadConnection, columns: str, ids: Sequence[str]
) -> list[tuple[object, ...]]:
    """Rows (``columns``, the second being ``type``) of the knowledge items among ``ids``
    (one chunk) that are not hidden; the type is checked here (see ``_KNOWLEDGE``)."""
    return [
        row
        for row in conn.execute(
            f"SELECT {columns} FROM entities WHERE id IN ({marks(len(ids))}) AND hidden_at IS NULL",
            tuple(ids),
        )
        if row[1] in _KNOWLEDGE
    ]


def load_items(conn: ReadConnection, ids: Iterable[str]) -> dict[str, RecallItem]:
    """The visible items among ``ids``, with the names of their areas and files."""
    wanted = list(dict.fromkeys(ids))
    rows: list[tuple[object, ...]] = []
    superseded: set[str] = set()
    for part in chunked(wanted):
        params = tuple(part)
        rows += _visible_by_id(
            conn, "id, type, content, confidence, issue_number, updated_at, seen_count, data", part
        )
        superseded.update(
            r[0]
            for r in conn.execute(
                f"SELECT to_id FROM relationships WHERE to_id IN ({marks(len(part))}) "
                "AND type = 'SUPERSEDES'",
                params,
            )
        )
    rows = [r for r in rows if r[0] not in superseded]
    targets: dict[str, list[str]] = {}
    for part in chunked([str(r[0]) for r in rows]):
        for from_id, to_id in conn.execute(
            f"SELECT from_id, to_id FROM relationships WHERE from_id IN ({marks(len(part))}) "
            f"AND type IN ({_edge_list(TARGET_EDGES)})",
            tuple(part),
        ):
            targets.setdefault(from_id, []).append(to_id)
    names: dict[str, tuple[str, str]] = {}
    for part in chunked(sorted({t for ts in targets.values() for t in ts})):
        for target_id, target_type, name in conn.execute(
            f"SELECT id, type, content FROM entities WHERE id IN ({marks(len(part))})",
            tuple(part),
        ):
            if target_type in _STRUCTURAL:
                names[target_id] = (target_type, name)
    items: dict[str, RecallItem] = {}
    for row in rows:
        item_id = str(row[0])
        linked = sorted(names[t] for t in targets.get(item_id, ()) if t in names)
        items[item_id] = RecallItem(
            id=item_id,
            type=str(row[1]),
            content=str(row[2]),
            confidence=float(row[3] or 0.0),  # type: ignore[arg-type]
            issue_number=row[4] if isinstance(row[4], int) else None,
            code_areas=tuple(dict.fromkeys(n for t, n in linked if t == "CodeArea")),
            files=tuple(dict.fromkeys(n for t, n in linked if t == "File")),
            updated_at=parse_time(row[5]),
            seen_count=int(row[6] or 1),  # type: ignore[call-overload]
            data=row[7],
        )
    return items


def item_texts(conn: ReadConnection, ids: Iterable[str]) -> dict[str, str]:
    """Id -> text of the knowledge items among ``ids`` that are not hidden: the one column
    a word filter needs, before :func:`load_items` builds the survivors whole."""
    texts: dict[str, str] = {}
    for part in chunked(list(dict.fromkeys(ids))):
        for item_id, _type, content in _visible_by_id(conn, "id, type, content", part):
            texts[str(item_id)] = str(content)
    return texts


def items_about(
    conn: ReadConnection,
    files: Iterable[str] = (),
    areas: Iterable[str] = (),
    *,
    types: frozenset[str] | None = None,
    most_per_file: int | None = None,
) -> list[RecallItem]:
    """Visible items linked to any of ``files`` (IN_FILE/APPLIES_TO) or ``areas``
    (ABOUT/APPLIES_TO), in id order. Of the files' items, only those of ``types`` when
    given, and only ``most_per_file`` of each file, those ranking puts first among equals
    (see :func:`_select`)."""
    file_ids = _structural(conn, "File", (normalise_path(f) for f in files))
    area_ids = _structural(conn, "CodeArea", (a.strip() for a in areas))
    ids = _select(conn, _linked(conn, list(file_ids), FILE_EDGES), most_per_file, types)
    ids.update(_linked(conn, list(area_ids), AREA_EDGES))
    found = load_items(conn, sorted(ids))
    return [found[i] for i in sorted(found)]


def items_of_issue(conn: ReadConnection, issue: int, most: int | None = None) -> list[RecallItem]:
    """The visible items of ``issue``; with ``most``, the first ``most`` as ranking orders
    them among equals (Mistakes, then Patterns, then the rest; newest first)."""
    linked = {
        str(r[0]): {"issue"}
        for r in conn.execute("SELECT id FROM entities WHERE issue_number = ?", (issue,))
    }
    ids = _select(conn, linked, most, None)
    found = load_items(conn, ids)
    return [found[i] for i in sorted(found)]


def item_count(conn: ReadConnection) -> int:
    """How many visible knowledge items are stored: the base of frequencies. A word's count
    (:func:`term_frequencies`) runs over every row of the text index, candidates and file
    and code-area rows included, so moving items to candidates lowers every word's rarity a
    little; counting both over the same rows would raise most rarities and needs
    ``MIN_LEXICAL`` recalibrated (docs/benchmarks.md, "an eighth unseen batch")."""
    row = conn.execute(
        f"SELECT COUNT(*) FROM entities WHERE type IN ({_TYPES}) AND hidden_at IS NULL"
    ).fetchone()
    return int(row[0]) if row else 0


def _frequencies(
    conn: ReadConnection, type_: str, names: Iterable[str], edges: Sequence[str]
) -> dict[str, int]:
    ids = _structural(conn, type_, names)
    counts: dict[str, int] = dict.fromkeys(ids.values(), 0)
    for part in chunked(list(ids)):
        for to_id, count in conn.execute(
            f"SELECT to_id, COUNT(*) FROM relationships WHERE to_id IN ({marks(len(part))}) "
            f"AND type IN ({_edge_list(edges)}) GROUP BY to_id",
            tuple(part),
        ):
            counts[ids[to_id]] = int(count)
    return counts


def file_frequencies(conn: ReadConnection, files: Iterable[str]) -> dict[str, int]:
    """File path -> how many items are linked to it (0 for a file no item names)."""
    return _frequencies(conn, "File", (normalise_path(f) for f in files), FILE_EDGES)


def stored_files(conn: ReadConnection) -> list[str]:
    """The paths of every file some item is about (File entities), parsed code or not."""
    rows = conn.execute("SELECT content FROM entities WHERE type = 'File'")
    return [str(path) for (path,) in rows]


def area_frequencies(conn: ReadConnection, areas: Iterable[str]) -> dict[str, int]:
    """Area name -> how many items (and File entities) are about it."""
    return _frequencies(conn, "CodeArea", areas, AREA_EDGES)


def lexical_ids(conn: ReadConnection, text: str, limit: int = LEXICAL_POOL) -> list[str]:
    """Ids of items whose text matches the words of ``text``, best BM25 first (FTS5)."""
    postgres = is_postgres(conn)
    match = tsquery_expression(text) if postgres else match_expression(text)
    if match is None:
        return []
    try:
        rows = conn.execute(PG_LEXICAL if postgres else SQLITE_LEXICAL, (match, limit)).fetchall()
    except sqlite3.OperationalError:  # an FTS5 syntax corner case: no lexical match
        return []
    return [str(r[0]) for r in rows]


def term_frequencies(conn: ReadConnection, terms: Mapping[str, str], most: int) -> dict[str, int]:
    """Word -> how many stored texts contain it or a word starting with its stem, counted
    up to ``most`` (``terms`` maps each word to its stem; both plain ``[A-Za-z0-9_]``
    text)."""
    counts: dict[str, int] = {}
    postgres = is_postgres(conn)
    for word, stem in terms.items():
        if postgres:
            row = conn.execute(PG_COUNT, (prefix_tsquery(word, stem), most)).fetchone()
            counts[word] = int(row[0]) if row else 0
            continue
        query = f'"{word}" OR "{stem}"*' if stem and stem != word else f'"{word}"'
        try:
            row = conn.execute(SQLITE_COUNT, (query, most)).fetchone()
        except sqlite3.OperationalError:
            continue
        counts[word] = int(row[0]) if row else 0
    return counts


def project_rules(
    conn: ReadConnection, *, min_seen: int = 2, min_confidence: float = 0.8, limit: int = 20
) -> list[RecallItem]:
    """Patterns and Mistakes stored more than once (seen in several sessions) with high
    confidence: what holds project-wide, whatever the session touches."""
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM entities WHERE type IN ('Pattern', 'Mistake') AND hidden_at IS NULL "
            "AND seen_count >= ? AND confidence >= ? "
            "ORDER BY seen_count DESC, confidence DESC, updated_at DESC, id LIMIT ?",
            (min_seen, min_confidence, limit),
        )
    ]
    found = load_items(conn, ids)
    return [found[i] for i in ids if i in found]
