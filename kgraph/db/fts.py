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


def _words(query: str) -> list[str]:
    words = [w for w in _TOKEN.findall(query.lower()) if w not in STOPWORDS]
    if not words:
        words = _TOKEN.findall(query.lower())
    return list(dict.fromkeys(words))


def match_expression(query: str) -> str | None:
    """A safe FTS5 MATCH string for free text: its words, quoted, OR-ed (BM25 ranks them).

    Returns None when the text has no searchable word. Quoting makes every FTS5 operator
    character in the input plain text.
    """
    words = _words(query)
    return " OR ".join(f'"{w}"' for w in words) if words else None


def tsquery_expression(query: str) -> str | None:
    r"""PostgreSQL's counterpart of :func:`match_expression`, for ``to_tsquery``: the same
    words OR-ed (``\w`` runs only, so no tsquery operator can get in)."""
    words = _words(query)
    return " | ".join(words) if words else None


def prefix_tsquery(word: str, stem: str | None) -> str:
    """``word | stem:*`` (``to_tsquery``): the word, or any word starting with its stem."""
    return f"{word} | {stem}:*" if stem and stem != word else word


# The read model's lexical queries, per dialect (``?`` placeholders, see kgraph.db.reader).
SQLITE_LEXICAL = (
    "SELECT entity_id FROM entities_fts WHERE entities_fts MATCH ? "
    "ORDER BY bm25(entities_fts) LIMIT ?"
)
# Counts stop at a limit (the second parameter): past it a word is common, and counting
# every text holding "request" in a 100,000-item store took a few milliseconds per word.
SQLITE_COUNT = (
    "SELECT COUNT(*) FROM (SELECT 1 FROM entities_fts WHERE entities_fts MATCH ? LIMIT ?)"
)
PG_LEXICAL = (
    f"SELECT id FROM entities, to_tsquery('{PG_FTS_CONFIG}', ?) AS q "
    f"WHERE {PG_FTS_COLUMN} @@ q ORDER BY ts_rank({PG_FTS_COLUMN}, q) DESC, id LIMIT ?"
)
PG_COUNT = (
    f"SELECT COUNT(*) FROM (SELECT 1 FROM entities "
    f"WHERE {PG_FTS_COLUMN} @@ to_tsquery('{PG_FTS_CONFIG}', ?) LIMIT ?) AS hits"
)


def ranked_matches(query: str, dialect: str) -> Select[tuple[str, float]] | None:
    """Entities matching the words of ``query``: ``SELECT entity_id, bm25`` where lower bm25
    is better (SQLite's FTS5 BM25, negated; PostgreSQL's ``ts_rank``, negated). Join it to
    ``entities`` to filter. None when the text has no searchable word.
    """
    from sqlalchemy import ColumnClause, column, func, literal_column, select, table

    if dialect == "postgresql":
        expression = tsquery_expression(query)
        if expression is None:
            return None
        entities = table("entities", column("id"), column(PG_FTS_COLUMN))
        tsquery = func.to_tsquery(literal_column(f"'{PG_FTS_CONFIG}'"), expression)
        vector = entities.c[PG_FTS_COLUMN]
        return select(
            entities.c.id.label("entity_id"), (-func.ts_rank(vector, tsquery)).label("bm25")
        ).where(vector.op("@@")(tsquery))
    match = match_expression(query)
    if match is None:
        return None
    fts = table(FTS_TABLE, column("entity_id"), column("content"))
    fts_column: ColumnClause[Any] = literal_column(FTS_TABLE)
    return select(fts.c.entity_id.label("entity_id"), func.bm25(fts_column).label("bm25")).where(
        fts_column.op("MATCH")(match)
    )
