"""Fixtures of the recall tests: the read model's connection to the test's database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.recall.readmodel import open_store


@pytest.fixture
def conn(db: Database) -> Iterator[ReadConnection]:
    """SQLite's stdlib reader, or psycopg on PostgreSQL: what the hooks read with."""
    connection = open_store(db.url)
    assert connection is not None
    yield connection
    connection.close()
