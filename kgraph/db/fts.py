"""SQLite FTS5 facts shared by the Alembic environment and the search code.

``entities_fts(entity_id UNINDEXED, content)`` is created by hand in migration 0001 and kept
in step with ``entities`` by triggers. It stores its own copy of the text keyed by entity id:
an external-content table keyed on ``entities.rowid`` would break after VACUUM, which may
renumber the rowids of a table without an INTEGER PRIMARY KEY.

Importing this module costs no SQLAlchemy (the hooks' read model builds its MATCH string
here too); only :func:`ranked_matches` needs it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Select

FTS_TABLE = "entities_fts"
# PostgreSQL: ``entities.search_vector`` (generated ``to_tsvector('english', content)``) with
# a GIN index, created in migration 0001 beside the FTS5 table's SQLite DDL.
PG_FTS_COLUMN = "search_vector"
PG_FTS_INDEX = "ix_entities_search_vector"
PG_FTS_CONFIG = "english"


def is_fts_object(name: str | None, type_: str = "table") -> bool:
    """True for what full-text search adds by hand, which Alembic must not compare: the FTS5
    table and its shadow tables (SQLite), the tsvector column and its index (PostgreSQL)."""
    if not name:
        return False
    if type_ == "table":
        return str(name).startswith(FTS_TABLE)
    if type_ == "column":
        return name == PG_FTS_COLUMN
    if type_ == "index":
        return name == PG_FTS_INDEX
    return False


# --- Query helpers (the search code's only FTS5-specific SQL) -----------------------------

_TOKEN = re.compile(r"\w+", re.UNICODE)
# Words too common to help ranking; dropping them keeps the candidate set small.
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    )
)


def match_expression(query: str) -> str | None:
    """A safe FTS5 MATCH string for free text: its words, quoted, OR-ed (BM25 ranks them).

    Returns None when the text has no searchable word. Quoting makes every FTS5 operator
    character in the input plain text.
    """
    words = [w for w in _TOKEN.findall(query.lower()) if w not in STOPWORDS]
    if not words:
        words = _TOKEN.findall(query.lower())
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


def ranked_matches(match: str) -> Select[tuple[str, float]]:
    """``SELECT entity_id, bm25 FROM entities_fts WHERE entities_fts MATCH :match``.

    Lower bm25 is better (SQLite returns negated scores). Join it to ``entities`` to filter.
    """
    from sqlalchemy import ColumnClause, column, func, literal_column, select, table

    fts = table(FTS_TABLE, column("entity_id"), column("content"))
    fts_column: ColumnClause[Any] = literal_column(FTS_TABLE)
    return select(fts.c.entity_id.label("entity_id"), func.bm25(fts_column).label("bm25")).where(
        fts_column.op("MATCH")(match)
    )
