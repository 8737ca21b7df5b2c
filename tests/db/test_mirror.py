"""The hooks' local copy of a server project: its stamp and age (standard library), and its
refresh from a real PostgreSQL server (the read model must answer the same on both)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from kgraph.codegraph.filedeps import dependencies_of, dependents_by_level
from kgraph.codegraph.indexer import parse_repository
from kgraph.codegraph.names import caller_files, resolve_names
from kgraph.db import Database, open_database
from kgraph.db.mirror import (
    MIRROR_FILE,
    REFRESH_AFTER_S,
    UNREACHABLE_FOR_S,
    MirrorStamp,
    mirror_age,
    note_unreachable,
    open_mirror,
    read_stamp,
    recently_unreachable,
    refresh_due,
    source_key,
    write_stamp,
)
from kgraph.db.mirror_sync import refresh_mirror
from kgraph.db.pgreader import open_pg_reader
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.edit import set_hidden
from kgraph.knowledge.store import add_item
from kgraph.recall import items as recall
from kgraph.recall.readmodel import recent_session_files
from tests.pgserver import PgServer

URL = "postgresql+psycopg://kgraph:secret@db.internal/kgraph?project=team"


def test_the_stamp_names_the_server_by_a_digest_and_gives_the_copy_s_age(tmp_path: Path) -> None:
    assert read_stamp(tmp_path) is None and mirror_age(tmp_path, URL) is None
    write_stamp(tmp_path, MirrorStamp(source=source_key(URL), refreshed_at=1000.0))
    assert "secret" not in (tmp_path / "mirror.json").read_text()
    assert mirror_age(tmp_path, URL, now=1030.0) is None  # a stamp without its copy
    sqlite3.connect(tmp_path / MIRROR_FILE).close()
    assert mirror_age(tmp_path, URL, now=1030.0) == 30.0
    assert mirror_age(tmp_path, URL.replace("team", "other"), now=1030.0) is None
    (tmp_path / "mirror.json").write_text("{not json")
    assert read_stamp(tmp_path) is None


def test_a_refresh_is_asked_for_once_per_interval(tmp_path: Path) -> None:
    assert refresh_due(tmp_path, URL, now=5000.0)  # no copy at all
    assert not refresh_due(tmp_path, URL, now=5000.0 + REFRESH_AFTER_S / 2)  # asked already
    assert refresh_due(tmp_path, URL, now=5000.0 + REFRESH_AFTER_S + 1)
    sqlite3.connect(tmp_path / MIRROR_FILE).close()
    write_stamp(tmp_path, MirrorStamp(source=source_key(URL), refreshed_at=9000.0))
    assert not refresh_due(tmp_path, URL, now=9000.0 + REFRESH_AFTER_S / 2)  # fresh copy
    assert refresh_due(tmp_path, URL, now=9000.0 + REFRESH_AFTER_S * 3)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "__init__.py").write_text("")
    (repo / "app" / "store.py").write_text("def save(x):\n    return x\n")
    (repo / "app" / "api.py").write_text(
        "from app.store import save\n\ndef handle(x):\n    return save(x)\n"
    )
    (repo / "app" / "cli.py").write_text(
        "from app.api import handle\n\ndef main():\n    return handle(1)\n"
    )
    return repo


@pytest.fixture
def server_db(pg_server: PgServer) -> Iterator[Database]:
    db = open_database(pg_server.fresh_url())
    yield db
    db.close()


def _answers(conn: ReadConnection) -> dict[str, object]:
    """What the hooks ask of a database, as plain values to compare."""
    about = recall.items_about(conn, ["app/store.py"], ["storage"])
    resolved = resolve_names(conn, ["save", "handle"])
    return {
        "count": recall.item_count(conn),
        "about": [(i.id, i.type, i.content, i.files) for i in about],
        "lexical": recall.lexical_ids(conn, "retries the save"),
        "rules": recall.project_rules(conn),
        "dependents": dependents_by_level(conn, ["app/store.py"], 3),
        "dependencies": dependencies_of(conn, "app/cli.py"),
        "names": [(r.name, r.files) for r in resolved],
        "callers": caller_files(conn, [e for r in resolved for e in r.entity_ids]),
        "recent": recent_session_files(conn, Path("/nowhere")),
    }


def _both(db: Database, folder: Path) -> tuple[dict[str, object], dict[str, object]]:
    server = open_pg_reader(db.url)
    copy = open_mirror(folder, db.url)
    assert server is not None and copy is not None
    try:
        return _answers(server), _answers(copy)
    finally:
        server.close()
        copy.close()


def test_the_copy_answers_every_hook_query_as_the_server_does(
    server_db: Database, tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    parse_repository(server_db, repo, root=repo)
    add_item(server_db, "save() retries the write once", type="Mistake", files=["app/store.py"])
    add_item(server_db, "storage code keeps one transaction a call", code_area="storage")
    folder = tmp_path / "state"
    folder.mkdir()

    first = refresh_mirror(server_db, folder)
    assert first.rebuilt and first.copied["knowledge"] > 0 and first.copied["graph"] > 0
    on_server, on_copy = _both(server_db, folder)
    assert on_server["about"] and on_server["dependents"] and on_server["names"]
    assert on_copy == on_server
    assert server_db.url not in (folder / "mirror.json").read_text()

    again = refresh_mirror(server_db, folder)
    assert not again.copied and sorted(again.unchanged) == [
        "checkpoints",
        "graph",
        "knowledge",
        "sessions",
    ]


def test_changes_on_the_server_reach_the_copy_file_by_file(
    server_db: Database, tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    parse_repository(server_db, repo, root=repo)
    hidden = add_item(
        server_db, "save() must not retry", type="Mistake", files=["app/store.py"]
    ).entity_id
    folder = tmp_path / "state"
    folder.mkdir()
    refresh_mirror(server_db, folder)

    def edges(conn: sqlite3.Connection | ReadConnection) -> set[tuple[object, ...]]:
        return set(
            conn.execute(
                "SELECT id, from_entity, to_entity, type, file_path, to_file, line_number, "
                "resolution FROM graph_relationships"
            ).fetchall()
        )

    first = open_mirror(folder, server_db.url)
    assert first is not None
    before = edges(first)
    first.close()
    # store.py's save becomes a class: api.py, unchanged itself, is resolved again (its
    # edges are rewritten under new ids); a deleted file goes; an item is hidden.
    (repo / "app" / "store.py").write_text(
        "class save:\n    def __init__(self, x):\n        pass\n"
    )
    (repo / "app" / "cli.py").unlink()
    parse_repository(server_db, repo, root=repo)
    set_hidden(server_db, hidden, True)
    kept = add_item(server_db, "the store keeps one file a table", files=["app/store.py"])
    refresh_mirror(server_db, folder)
    # A change that moves no count and no timestamp reaches the copy too.
    server_db.write(
        lambda c: c.execute(
            text("UPDATE entities SET confidence = 0.99 WHERE id = :id"), {"id": kept.entity_id}
        )
    )
    report = refresh_mirror(server_db, folder)
    assert list(report.copied) == ["knowledge"]

    server = open_pg_reader(server_db.url)
    copy = open_mirror(folder, server_db.url)
    assert server is not None and copy is not None
    try:
        api_before = {e for e in before if e[4] == "app/api.py"}
        assert api_before and api_before.isdisjoint(edges(server))  # rewritten on the server
        assert edges(copy) == edges(server)
        assert not any(row[4] == "app/cli.py" for row in edges(copy))
        assert hidden not in [i.id for i in recall.items_about(copy, ["app/store.py"])]
        confidence = "SELECT confidence FROM entities WHERE id = ?"
        assert copy.execute(confidence, (kept.entity_id,)).fetchone() == (0.99,)
    finally:
        server.close()
        copy.close()


def test_a_copy_of_another_project_or_schema_is_rebuilt(
    server_db: Database, pg_server: PgServer, tmp_path: Path
) -> None:
    add_item(server_db, "the first project's learning about retries", files=["a.py"])
    folder = tmp_path / "state"
    folder.mkdir()
    refresh_mirror(server_db, folder)

    other = open_database(pg_server.fresh_url())
    try:
        report = refresh_mirror(other, folder)
        assert report.rebuilt
        copy = open_mirror(folder, other.url)
        assert copy is not None and recall.item_count(copy) == 0
        copy.close()
        assert open_mirror(folder, server_db.url) is None  # the first project's copy is gone
    finally:
        other.close()

    refresh_mirror(server_db, folder)
    with sqlite3.connect(folder / MIRROR_FILE) as conn:  # an older kgraph's copy
        conn.execute("UPDATE alembic_version SET version_num = '0003'")
    assert refresh_mirror(server_db, folder).rebuilt
    copy = open_mirror(folder, server_db.url)
    assert copy is not None and recall.item_count(copy) == 1
    copy.close()


def test_a_copy_leaves_out_vectors_and_parse_summaries(server_db: Database, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    parse_repository(server_db, repo, root=repo)
    add_item(server_db, "vectors stay on the server", files=["app/api.py"])
    folder = tmp_path / "state"
    folder.mkdir()
    refresh_mirror(server_db, folder)
    copy = open_database(f"sqlite:///{folder / MIRROR_FILE}")
    try:
        vectors, summaries = copy.read(
            lambda c: (
                c.execute(text("SELECT COUNT(embedding) FROM entities")).scalar_one(),
                c.execute(text("SELECT COUNT(*) FROM graph_summaries")).scalar_one()
                + c.execute(
                    text(
                        "SELECT COUNT(deps) + COUNT(missing) + COUNT(pulled) + COUNT(sites) "
                        "FROM graph_files"
                    )
                ).scalar_one(),
            )
        )
    finally:
        copy.close()
    assert (vectors, summaries) == (0, 0)


def test_an_unreachable_server_is_remembered_for_a_minute_or_until_a_refresh(
    tmp_path: Path,
) -> None:
    assert not recently_unreachable(tmp_path)
    note_unreachable(tmp_path)
    assert recently_unreachable(tmp_path)
    assert not recently_unreachable(tmp_path, now=time.time() + UNREACHABLE_FOR_S + 1)
    write_stamp(tmp_path, MirrorStamp(source=source_key(URL), refreshed_at=time.time()))
    assert not recently_unreachable(tmp_path)


def test_a_damaged_copy_is_a_miss_and_is_rebuilt(server_db: Database, tmp_path: Path) -> None:
    add_item(server_db, "the copy heals itself", files=["a.py"])
    folder = tmp_path / "state"
    folder.mkdir()
    refresh_mirror(server_db, folder)
    (folder / MIRROR_FILE).write_bytes(b"not a database at all" * 100)
    assert open_mirror(folder, server_db.url) is None
    assert refresh_due(folder, server_db.url)  # the stamp went with it
    assert refresh_mirror(server_db, folder).rebuilt
    copy = open_mirror(folder, server_db.url)
    assert copy is not None and recall.item_count(copy) == 1
    copy.close()
