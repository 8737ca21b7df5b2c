"""A no-change parse found without parsing (kgraph.codegraph.uptodate), and the queries on
the driver alone (kgraph.db.open_direct) answering as they do on a Database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from kgraph.codegraph import store, targets
from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.listing import legacy_hash
from kgraph.codegraph.lookups import exports, find_entities, what_depends_on
from kgraph.codegraph.query import blast_radius, what_calls
from kgraph.codegraph.records import UNRESOLVED_PREFIX
from kgraph.codegraph.uptodate import LOOKUP_INDEXES, parse_target, unchanged_report
from kgraph.db import Database, Transactions, open_direct
from tests.codegraph.conftest import APP_FILES, write_tree

Parse = Callable[..., ParseReport]
Git = Callable[..., str]


def test_the_constants_copied_to_stay_light_match_their_sources() -> None:
    assert {str(index.name) for index in store._lookup_indexes()} == LOOKUP_INDEXES
    assert UNRESOLVED_PREFIX == targets.UNRESOLVED_PREFIX


@pytest.fixture
def app(tmp_repo: Path, git: Git) -> Path:
    write_tree(tmp_repo, APP_FILES)
    git(tmp_repo, "add", "-A")
    git(tmp_repo, "commit", "-q", "-m", "app")
    return tmp_repo


def _check(db: Database, root: Path, path: Path | None = None) -> ParseReport | None:
    target = parse_target(path or root, root)
    return db.read_raw(lambda conn: unchanged_report(conn, target))


def test_a_parse_with_nothing_to_do_is_reported_as_the_parse_reports_it(
    db: Database, app: Path, parse: Parse
) -> None:
    parse(app)
    assert _check(db, app) is not None
    full = parse(app)  # nothing to do: the whole pipeline's report
    for path in (app, app / "app", app / "app" / "db.py"):
        quick = _check(db, app, path)
        assert quick is not None
        slow = parse(app, path)
        assert {**quick.to_dict(), "seconds": 0} == {**slow.to_dict(), "seconds": 0}
    assert full.resolved == 0


@pytest.mark.parametrize("edit", ["modify", "add", "delete", "untracked", "stale", "index"])
def test_any_work_to_do_is_seen(edit: str, db: Database, app: Path, parse: Parse, git: Git) -> None:
    parse(app)
    if edit == "modify":
        (app / "app" / "db.py").write_text(APP_FILES["app/db.py"] + "\nX = 1\n")
    elif edit == "add":
        (app / "app" / "more.py").write_text("Y = 2\n")
        git(app, "add", "app/more.py")
    elif edit == "delete":
        (app / "app" / "repo.py").unlink()
    elif edit == "untracked":
        (app / "app" / "more.py").write_text("Y = 2\n")
    elif edit == "stale":
        db.write(lambda conn: store.mark_stale(conn, ["app/db.py"]))
    else:
        db.write(store.drop_lookup_indexes)
    assert _check(db, app) is None
    report = parse(app)  # does it (an index is rebuilt without a count)
    work = (report.added, report.changed, report.deleted, report.resolved)
    assert (work == (0, 0, 0, 0)) == (edit == "index")
    assert _check(db, app) is not None


def test_outside_git_every_file_is_hashed(db: Database, tmp_path: Path, parse: Parse) -> None:
    root = write_tree(tmp_path / "plain", APP_FILES)
    parse(root)
    assert _check(db, root) is not None
    (root / "app" / "db.py").write_text("changed = True\n")
    assert _check(db, root) is None


def test_hashes_of_a_release_before_are_taken_once_and_replaced(
    db: Database, app: Path, parse: Parse
) -> None:
    parse(app)

    def old_hashes(conn: Connection) -> None:
        for path in APP_FILES:
            digest = legacy_hash((app / path).read_bytes())
            conn.execute(
                text("UPDATE graph_files SET content_hash = :h WHERE path = :p"),
                {"h": digest, "p": path},
            )

    db.write(old_hashes)
    assert _check(db, app) is None  # not git's ids: the parse decides
    report = parse(app)
    assert (report.changed, report.unchanged, report.resolved) == (0, len(APP_FILES), 0)
    assert _check(db, app) is not None  # and stored git's ids


def _answers(source: Transactions) -> list[object]:
    return [
        what_calls(source, "Database.query", include_unresolved=True),
        blast_radius(source, "app/db.py", depth=5),
        find_entities(source, "Rep"),
        exports(source, "app/__init__.py"),
        what_depends_on(source, "app/db.py", depth=2),
    ]


def test_queries_on_the_driver_alone_answer_as_on_a_database(
    db: Database, db_url: str, app: Path, parse: Parse
) -> None:
    parse(app)
    direct = open_direct(db_url)
    assert direct is not None
    try:
        assert _answers(direct) == _answers(db)
    finally:
        direct.close()
