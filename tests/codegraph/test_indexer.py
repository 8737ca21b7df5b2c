"""The indexer's cold bulk load (lookup indexes dropped, then rebuilt) and the lock that
serialises parses of one database."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from kgraph.codegraph import indexer, store
from kgraph.codegraph.indexer import ParseReport, parse_repository
from kgraph.db import Database, open_database
from kgraph.db.models import GraphRelationship, table_of
from tests.codegraph.conftest import write_tree

EDGES = table_of(GraphRelationship)
Parse = Callable[..., ParseReport]
LOOKUP_INDEXES = {
    "ix_graph_entities_file_path",
    "ix_graph_entities_name",
    "ix_graph_entities_qualified_name",
    "ix_graph_relationships_callers",
    "ix_graph_relationships_file_path",
    "ix_graph_relationships_to_file",
}


def _indexes(conn: Connection) -> set[str]:
    """The explicit indexes of the two graph tables (not those of keys and constraints)."""
    if conn.dialect.name == "postgresql":
        rows = conn.execute(
            text(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND "
                "tablename IN ('graph_entities', 'graph_relationships') "
                "AND indexname NOT LIKE 'pk_%'"
            )
        )
        return {name for (name,) in rows}
    rows = conn.execute(
        text(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN "
            "('graph_entities', 'graph_relationships') AND sql IS NOT NULL"
        )
    )
    return {name for (name,) in rows}


def _edges(db: Database) -> set[tuple[Any, ...]]:
    rows = db.read(
        lambda c: c.execute(
            select(
                EDGES.c.from_entity,
                EDGES.c.to_entity,
                EDGES.c.type,
                EDGES.c.line_number,
                EDGES.c.confidence,
                EDGES.c.resolution,
            )
        ).all()
    )
    return {tuple(row) for row in rows}


@pytest.fixture
def chain_repo(tmp_path: Path) -> Path:
    """Twenty modules, each calling the previous one's function through an import."""
    files = {
        f"pkg/m{i}.py": f"from pkg.m{i - 1} import f{i - 1}\n\n\ndef f{i}():\n"
        f"    return f{i - 1}()\n"
        for i in range(1, 20)
    }
    files["pkg/__init__.py"] = ""
    files["pkg/m0.py"] = "def f0():\n    return len([])\n"
    return write_tree(tmp_path / "chain", files)


def test_the_lookup_indexes_are_the_ones_the_migration_creates(db: Database) -> None:
    assert db.read(_indexes) == LOOKUP_INDEXES


def test_a_cold_parse_loads_without_lookup_indexes_and_builds_them_after(
    db: Database, tmp_path: Path, chain_repo: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = open_database(f"sqlite:///{tmp_path / 'reference.db'}")
    parse_repository(reference, chain_repo, root=chain_repo, jobs=1)  # too few for bulk
    expected = _edges(reference)
    reference.close()

    seen: list[tuple[bool, set[str]]] = []
    replace_rows = store.replace_rows

    def spy(conn: Connection, rows: store.RowsToWrite, fresh: bool = False) -> tuple[int, int]:
        seen.append((fresh, _indexes(conn)))
        return replace_rows(conn, rows, fresh)

    monkeypatch.setattr(indexer, "BULK_LOAD_MIN_FILES", 5)
    monkeypatch.setattr(store, "replace_rows", spy)
    report = parse(chain_repo)
    assert report.resolved == 21
    assert seen and all(fresh and indexes == set() for fresh, indexes in seen)
    assert db.read(_indexes) == LOOKUP_INDEXES
    assert _edges(db) == expected

    # Not cold any more: the next full re-parse replaces rows with the indexes in place.
    seen.clear()
    parse(chain_repo, force=True)
    assert seen and all(not fresh and indexes == LOOKUP_INDEXES for fresh, indexes in seen)
    assert _edges(db) == expected


def test_the_indexes_come_back_when_a_bulk_load_fails(
    db: Database, chain_repo: Path, parse: Parse, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object) -> tuple[int, int]:
        raise RuntimeError("worker died")

    monkeypatch.setattr(indexer, "BULK_LOAD_MIN_FILES", 5)
    monkeypatch.setattr(indexer, "resolve_all", fail)
    with pytest.raises(RuntimeError, match="worker died"):
        parse(chain_repo)
    assert db.read(_indexes) == LOOKUP_INDEXES


def test_an_index_lost_in_a_crash_is_rebuilt_by_the_next_run(
    db: Database, chain_repo: Path, parse: Parse
) -> None:
    parse(chain_repo)
    db.write(store.drop_lookup_indexes)  # as a process killed mid bulk load leaves it
    assert db.read(_indexes) == set()
    report = parse(chain_repo)
    assert report.resolved == 0
    assert db.read(_indexes) == LOOKUP_INDEXES


def _parse_in_child(url: str, repo: str) -> None:
    database = open_database(url)
    parse_repository(database, Path(repo), root=Path(repo), jobs=1)
    database.close()


def test_concurrent_cold_parses_of_one_database_are_serialised(
    db: Database, tmp_path: Path, chain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = open_database(f"sqlite:///{tmp_path / 'reference.db'}")
    parse_repository(reference, chain_repo, root=chain_repo, jobs=1)
    expected = _edges(reference)
    reference.close()
    context = multiprocessing.get_context("fork")
    # Every child waits (up to a second) for the others just before deciding on a bulk load:
    # without the lock all three see empty tables and load the same rows three times.
    barrier = context.Barrier(3)
    graph_is_empty = store.graph_is_empty

    def in_step(conn: Connection) -> bool:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=1)
        return graph_is_empty(conn)

    monkeypatch.setattr(store, "graph_is_empty", in_step)
    monkeypatch.setattr(indexer, "BULK_LOAD_MIN_FILES", 5)
    children = [
        context.Process(target=_parse_in_child, args=(db.url, str(chain_repo))) for _ in range(3)
    ]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
    assert [child.exitcode for child in children] == [0, 0, 0]
    assert _edges(db) == expected
    assert db.read(_indexes) == LOOKUP_INDEXES


def _hold_parse_lock(path: str, held: Any, release: Any) -> None:
    from kgraph.db.core import file_lock

    with file_lock(Path(path), ".graph.lock"):
        held.set()
        release.wait(10)


@pytest.mark.sqlite_only  # the lock file names its holder; a server's advisory lock does not
def test_a_parse_waiting_for_another_says_so_first(db: Database, chain_repo: Path) -> None:
    assert db.path is not None
    context = multiprocessing.get_context("fork")
    held, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_parse_lock, args=(str(db.path), held, release))
    holder.start()
    assert held.wait(10)
    stages: list[tuple[str, int, int]] = []
    said: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        if not stages:  # the first word: the lock is still held
            release.set()
        stages.append((stage, done, total))

    report = parse_repository(
        db, chain_repo, root=chain_repo, jobs=1, progress=progress, on_wait=said.append
    )
    holder.join(10)
    assert stages[0] == ("wait", 0, 0)
    (line,) = said  # who holds the lock, said once
    assert line.startswith(
        f"Waiting for another graph parse of this database (pid {holder.pid}, for "
    )
    assert {stage for stage, _done, _total in stages[1:]} == {"parse", "resolve"}
    assert report.added == 21
