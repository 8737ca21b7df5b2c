from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgraph.db import Database
from kgraph.db.reader import open_reader, parse_time
from kgraph.db.schema_version import HEAD_REVISION, KNOWN_REVISIONS, READABLE_FROM
from kgraph.errors import SchemaTooNewError
from kgraph.recall.readmodel import open_store


def test_open_reader_reads_an_up_to_date_database_and_never_writes(db: Database) -> None:
    conn = open_store(db.url)  # SQLite's stdlib reader, or psycopg on PostgreSQL
    assert conn is not None
    assert conn.execute("SELECT COUNT(*) FROM entities").fetchone()[0] == 0
    with pytest.raises(Exception, match=r"readonly|read-only") as raised:
        conn.execute("DELETE FROM entities")
    assert isinstance(raised.value, sqlite3.OperationalError) or db.dialect == "postgresql"
    conn.close()


def test_nothing_to_read_is_none(tmp_path: Path) -> None:
    assert open_reader(tmp_path / "missing.db") is None
    assert not (tmp_path / "missing.db").exists()
    (tmp_path / "empty.db").write_bytes(b"")
    assert open_reader(tmp_path / "empty.db") is None


def test_a_file_that_is_not_sqlite_or_is_damaged_is_one_line(tmp_path: Path) -> None:
    """Not nothing-to-read: the hook runner logs it and tells the user once per session."""
    import pytest

    from kgraph.errors import DatabaseError

    (tmp_path / "text.db").write_text("not a database at all, certainly not")
    with pytest.raises(DatabaseError, match="not a SQLite database"):
        open_reader(tmp_path / "text.db")


def _at_revision(path: Path, revision: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE alembic_version (version_num TEXT)")
    conn.execute("INSERT INTO alembic_version VALUES (?)", (revision,))
    conn.commit()
    conn.close()
    return path


def test_an_older_schema_is_none_the_worker_upgrades_it(tmp_path: Path) -> None:
    assert open_reader(_at_revision(tmp_path / "old.db", "0001")) is None


def test_a_schema_that_only_lacks_later_indexes_is_read_as_it_is(tmp_path: Path) -> None:
    # After an upgrade that only adds an index, the hooks keep reading until the worker
    # migrates: the first session does not go without its briefing.
    older = [r for r in KNOWN_REVISIONS if READABLE_FROM <= r < HEAD_REVISION]
    assert older  # this kgraph has such a revision
    for revision in older:
        conn = open_reader(_at_revision(tmp_path / f"{revision}.db", revision))
        assert conn is not None
        conn.close()


def test_a_newer_schema_says_so_no_process_of_this_kgraph_will_read_it(
    tmp_path: Path,
) -> None:
    """It was None too: every hook injected nothing, and nothing said why."""
    path = _at_revision(tmp_path / "new.db", "9999_future")
    with pytest.raises(SchemaTooNewError, match=r"newer than this kgraph .*; upgrade kgraph"):
        open_reader(path)


def test_parse_time_reads_what_sqlalchemy_writes() -> None:
    assert parse_time("2026-11-20 10:30:00.000001") == datetime(
        2026, 11, 20, 10, 30, 0, 1, tzinfo=UTC
    )
    assert parse_time(None) is None and parse_time("garbage") is None
