"""SQLite FTS5 facts shared by the Alembic environment and the search code.

``entities_fts(entity_id UNINDEXED, content)`` is created by hand in migration 0001 and kept
in step with ``entities`` by triggers. It stores its own copy of the text keyed by entity id:
an external-content table keyed on ``entities.rowid`` would break after VACUUM, which may
renumber the rowids of a table without an INTEGER PRIMARY KEY.
"""

FTS_TABLE = "entities_fts"


def is_fts_object(name: str | None) -> bool:
    """True for the FTS5 table and its shadow tables, which Alembic must not compare."""
    return bool(name) and str(name).startswith(FTS_TABLE)
