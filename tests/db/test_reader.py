from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgraph.db import Database
from kgraph.db.reader import open_reader, parse_time


def test_open_reader_reads_an_up_to_date_database_and_never_writes(db: Database) -> None:
    assert db.path is not None
    conn = open_reader(db.path)
    assert conn is not None
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("DELETE FROM entities")
    conn.close()


def test_nothing_to_read_is_none(tmp_path: Path) -> None:
    assert open_reader(tmp_path / "missing.db") is None
    assert not (tmp_path / "missing.db").exists()
    (tmp_path / "empty.db").write_bytes(b"")
    assert open_reader(tmp_path / "empty.db") is None
    (tmp_path / "text.db").write_text("not a database at all, certainly not")
    assert open_reader(tmp_path / "text.db") is None


def test_another_schema_is_none(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE alembic_version (version_num TEXT)")
    conn.execute("INSERT INTO alembic_version VALUES ('0001')")
    conn.commit()
    conn.close()
    assert open_reader(path) is None


def test_parse_time_reads_what_sqlalchemy_writes() -> None:
    assert parse_time("2026-11-20 10:30:00.000001") == datetime(
        2026, 11, 20, 10, 30, 0, 1, tzinfo=UTC
    )
    assert parse_time(None) is None and parse_time("garbage") is None
