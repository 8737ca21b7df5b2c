"""The hooks' read model: one set of queries, whether a hook opens the database with the
standard library (the fast path) or library code reads it under SQLAlchemy (the database
path). A property test drives both over random stores and sessions."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgraph import checkpoint
from kgraph.capture.sessions import update_session
from kgraph.db import Database, open_database
from kgraph.db.reader import ReadConnection, open_reader, raw_connection
from kgraph.knowledge.edit import set_hidden, supersede
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.file import file_recall
from kgraph.recall.gitinfo import CommitFiles, RecentWork
from kgraph.recall.readmodel import (
    gather,
    history_shown,
    latest_sessions,
    open_store,
    recent_session_files,
    session_share,
    unused_items,
)
from kgraph.recall.relevance import Focus
from kgraph.recall.session import SessionSignals, session_briefing
from kgraph.runtime.settings import HookSettings
from tests.hooks.graph_rows import add_graph

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
FILES = ["src/a.py", "src/b.py", "src/c.py", "web/api.py", "CHANGES.rst", "docs/x.md"]
TYPES = ["Learning", "Mistake", "Pattern", "Topic"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty database at the current schema, copied for each example (migrating one per
    example would dominate the test's time)."""
    path = tmp_path_factory.mktemp("template") / "kgraph.db"
    open_database(f"sqlite:///{path}").close()
    return path


def test_recent_session_files_are_relative_newest_first_without_the_session(
    db: Database, tmp_path: Path
) -> None:
    def edited(paths: list[str]) -> Callable[[dict[str, Any]], None]:
        def change(row: dict[str, Any]) -> None:
            row["data"]["files_edited"] = paths

        return change

    update_session(db, "old", edited([str(tmp_path / "a.py"), "/elsewhere/x.py"]))
    update_session(db, "new", edited(["b.py", "a.py"]))
    update_session(db, "me", edited(["mine.py"]))
    conn = open_store(db.url)
    assert conn is not None
    # the same started_at order as inserted: "me" is newest but excluded
    found = dict(recent_session_files(conn, tmp_path, exclude_session="me"))
    assert set(found) == {"a.py", "b.py"} and "mine.py" not in found
    conn.close()


item_strategy = st.fixed_dictionaries(
    {
        "type": st.sampled_from(TYPES),
        "files": st.lists(st.sampled_from(FILES), max_size=3, unique=True),
        "issue": st.one_of(st.none(), st.integers(1, 3)),
        "confidence": st.floats(0.1, 1.0),
        "repeat": st.integers(1, 3),
        "fate": st.sampled_from(["keep", "keep", "keep", "hide", "supersede"]),
    }
)
store_strategy = st.fixed_dictionaries(
    {
        "items": st.lists(item_strategy, max_size=14),
        "edges": st.lists(st.tuples(st.sampled_from(FILES), st.sampled_from(FILES)), max_size=6),
        "workflow": st.one_of(
            st.none(), st.tuples(st.integers(1, 3), st.sampled_from(["running", "completed"]))
        ),
        "sessions": st.lists(st.lists(st.sampled_from(FILES), max_size=2), max_size=2),
    }
)
session_strategy = st.fixed_dictionaries(
    {
        "branch": st.sampled_from(["main", "issue-1", "feat/2-x", "fix/issue-3"]),
        "changed": st.lists(st.sampled_from(FILES), max_size=3, unique=True),
        "own": st.booleans(),
        "commits": st.lists(st.lists(st.sampled_from(FILES), max_size=3), max_size=3),
        "source": st.sampled_from(["startup", "resume", "compact"]),
        "read": st.sampled_from(FILES),
    }
)


def fill(db: Database, store: dict[str, Any]) -> None:
    kept: list[str] = []
    for n, spec in enumerate(store["items"]):
        text = f"Item {n}: the {spec['type'].lower()} about {' '.join(spec['files']) or 'nothing'}"
        for _ in range(spec["repeat"]):
            result = add_item(
                db,
                text,
                type=spec["type"],
                files=spec["files"],
                issue_number=spec["issue"],
                confidence=spec["confidence"],
                thorough_redaction=False,
            )
        if spec["fate"] == "hide":
            set_hidden(db, result.entity_id, True)
        elif spec["fate"] == "supersede" and kept:
            supersede(db, kept[-1], result.entity_id)
        kept.append(result.entity_id)
    edges = [(a, b) for a, b in dict.fromkeys(store["edges"]) if a != b]
    if edges:
        add_graph(db, FILES, edges)
    if store["workflow"] is not None:
        issue, status = store["workflow"]
        workflow = checkpoint.create_workflow(db, issue, f"issue-{issue}")
        checkpoint.log_action(db, workflow.id, "ran the tests", "failed")
        if status != "running":
            checkpoint.set_status(db, workflow.id, status)
    for n, files in enumerate(store["sessions"]):

        def change(row: dict[str, Any], files: list[str] = files) -> None:
            row["data"]["files_edited"] = files

        update_session(db, f"earlier-{n}", change)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(store=store_strategy, session=session_strategy)
def test_the_fast_path_and_the_database_path_agree(
    store: dict[str, Any], session: dict[str, Any], template: Path, tmp_path: Path
) -> None:
    path = tmp_path / f"kg-{abs(hash(repr((store, session))))}.db"
    shutil.copy(template, path)
    db = open_database(f"sqlite:///{path}")
    try:
        fill(db, store)
        commits = tuple(
            CommitFiles(f"{n:040x}", f"commit {n}", tuple(files))
            for n, files in enumerate(session["commits"])
        )
        signals = SessionSignals(
            branch=session["branch"],
            changed=tuple(session["changed"]),
            recent=RecentWork(own=session["own"], commits=commits),
            session_id="now",
            source=session["source"],
        )
        hook_settings, evidence = HookSettings(), EvidenceSettings()

        def brief(conn: sqlite3.Connection) -> Any:
            return session_briefing(
                conn,
                tmp_path,
                signals,
                settings=hook_settings,
                evidence=evidence,
                workflow_files=lambda shas: (),
                now=NOW,
            )

        def recall_file(conn: sqlite3.Connection) -> Any:
            return file_recall(
                conn,
                session["read"],
                settings=evidence,
                exclude=set(),
                max_items=3,
                max_chars=1_500,
                now=NOW,
            )

        through_sqlalchemy = db.read(
            lambda c: (brief(raw_connection(c)), recall_file(raw_connection(c)))
        )
        fast = open_reader(path)
        assert fast is not None
        try:
            direct = (brief(fast), recall_file(fast))
        finally:
            fast.close()
        assert direct == through_sqlalchemy
    finally:
        db.close()


def _server_with_copy(pg_server: Any, folder: Path) -> str:
    """A server project with one item, copied into ``folder``, then a second item added
    on the server only: which of the two a read sees tells where it read."""
    from kgraph.db.mirror_sync import refresh_mirror

    url = pg_server.fresh_url()
    server = open_database(url)
    try:
        add_item(server, "copied: the cache keys by path", files=["src/a.py"])
        refresh_mirror(server, folder)
        add_item(server, "server only: the cache expires hourly", files=["src/a.py"])
    finally:
        server.close()
    return url


def _contents(conn: ReadConnection | None) -> list[str]:
    from kgraph.recall import items as recall

    assert conn is not None
    try:
        return sorted(i.content for i in recall.items_about(conn, ["src/a.py"]))
    finally:
        conn.close()


def test_a_server_project_is_read_from_its_copy_up_to_the_age_asked(
    pg_server: Any, tmp_path: Path
) -> None:
    from kgraph.db.mirror import read_stamp, write_stamp

    url = _server_with_copy(pg_server, tmp_path)
    copied = ["copied: the cache keys by path"]
    everything = sorted([*copied, "server only: the cache expires hourly"])
    assert _contents(open_store(url, tmp_path)) == copied  # any age
    assert _contents(open_store(url, tmp_path, fresh_for=120)) == copied
    assert _contents(open_store(url)) == everything  # no copy asked for: the server

    stamp = read_stamp(tmp_path)
    assert stamp is not None
    write_stamp(tmp_path, stamp.__class__(stamp.source, stamp.refreshed_at - 600, {}))
    assert _contents(open_store(url, tmp_path, fresh_for=120)) == everything
    assert _contents(open_store(url, tmp_path)) == copied


def test_an_unreachable_server_is_read_from_its_copy_at_any_age(
    pg_server: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil as _shutil

    from kgraph.db.mirror import MIRROR_FILE, STAMP_FILE, source_key
    from kgraph.errors import DatabaseError

    url = _server_with_copy(pg_server, tmp_path)
    nowhere = f"postgresql+psycopg://kgraph@/kgraph?host={tmp_path}/gone&connect_timeout=2"
    folder = tmp_path / "nowhere-copy"
    folder.mkdir()
    _shutil.copy(tmp_path / MIRROR_FILE, folder / MIRROR_FILE)
    stamp = (tmp_path / STAMP_FILE).read_text().replace(source_key(url), source_key(nowhere))
    (folder / STAMP_FILE).write_text(stamp)

    with caplog.at_level("WARNING", logger="kgraph.hooks"):
        found = _contents(open_store(nowhere, folder, fresh_for=0))
    assert found == ["copied: the cache keys by path"]
    assert "cannot reach the kgraph database server" in caplog.text
    assert "local copy" in caplog.text

    # For a minute the server is not tried again (a silent one costs a connect timeout).
    import kgraph.db.pgreader

    def must_not_connect(url: str) -> None:
        raise AssertionError("tried the server again")

    monkeypatch.setattr(kgraph.db.pgreader, "open_pg_reader", must_not_connect)
    assert _contents(open_store(nowhere, folder, fresh_for=0)) == found
    monkeypatch.undo()
    with pytest.raises(DatabaseError, match="cannot reach"):
        open_store(nowhere, tmp_path / "no-copy-here")


def test_an_item_two_sessions_left_alone_is_unused_however_another_used_it(
    db: Database, tmp_path: Path
) -> None:
    broad = add_item(db, "Converted the queue to a class", files=["src/queue.ts", "CLAUDE.md"])
    opened = add_item(db, "The worker retries twice", files=["src/worker.ts"])
    once = add_item(db, "Logs stream over a websocket", files=["src/logs.ts"])

    def session(ids: list[str], read: list[str]) -> Callable[[dict[str, Any]], None]:
        def change(row: dict[str, Any]) -> None:
            row["injected_ids"] = ids
            row["data"]["files_read"] = read

        return change

    ids = [broad.entity_id, opened.entity_id]
    update_session(db, "s1", session([*ids, once.entity_id], ["docs/plan.md"]))
    update_session(db, "s2", session(ids, [str(tmp_path / "src" / "worker.ts")]))
    update_session(db, "s3", session(ids, []))
    conn = open_store(db.url)
    assert conn is not None
    # broad: shown three times, never opened; once: shown once. opened: s2 read its file,
    # but s1 and s3 did not: two sessions left it alone, however another used it.
    assert unused_items(conn, latest_sessions(conn, tmp_path, "s4")) == {
        broad.entity_id,
        opened.entity_id,
    }
    # Without s3, only s1 left it alone.
    assert unused_items(conn, latest_sessions(conn, tmp_path, "s3")) == {broad.entity_id}
    conn.close()


def test_history_one_session_was_shown_is_spent(db: Database, tmp_path: Path) -> None:
    commit = add_item(
        db,
        "Track last interaction time",
        files=["src/state.go"],
        source="commit",
        source_ref="0123456789ab",
    )
    told = add_item(db, "The worker retries twice", files=["src/state.go"])
    later = add_item(
        db,
        "Add EndedAt to the session state",
        files=["src/state.go"],
        source="commit",
        source_ref="fedcba987654",
    )

    def shown(row: dict[str, Any]) -> None:
        row["injected_ids"] = [commit.entity_id, told.entity_id]
        row["data"]["files_read"] = ["src/state.go"]  # it opened the file: used, as unused counts

    update_session(db, "s1", shown)
    conn = open_store(db.url)
    assert conn is not None
    latest = latest_sessions(conn, tmp_path, "s2")
    # The commit's message, once shown, is spent; what a person or a session said is not,
    # nor history no session was shown.
    assert history_shown(conn, latest) == {commit.entity_id}
    assert unused_items(conn, latest) == set()
    # The session itself is not an earlier one.
    assert history_shown(conn, latest_sessions(conn, tmp_path, "s1")) == set()
    assert later.entity_id not in history_shown(conn, latest)
    conn.close()


def test_the_share_of_recent_sessions_that_opened_a_file(db: Database, tmp_path: Path) -> None:
    def opened(read: list[str], edited: list[str] = ()) -> Callable[[dict[str, Any]], None]:
        def change(row: dict[str, Any]) -> None:
            row["data"]["files_read"] = read
            row["data"]["files_edited"] = list(edited)

        return change

    hub = str(tmp_path / "cmd" / "state.go")  # recorded as the transcript gave it
    update_session(db, "s1", opened([hub, "docs/plan.md"]))
    update_session(db, "s2", opened([]))
    conn = open_store(db.url)
    assert conn is not None
    # Two sessions: too few.
    assert session_share(latest_sessions(conn, tmp_path), "cmd/state.go") == 0.0
    conn.close()
    update_session(db, "s3", opened([], edited=["cmd/state.go"]))
    update_session(db, "s4", lambda row: None)  # its transcript never read: not counted
    conn = open_store(db.url)
    assert conn is not None
    assert session_share(latest_sessions(conn, tmp_path), "cmd/state.go") == 2 / 3
    assert session_share(latest_sessions(conn, tmp_path), "docs/plan.md") == 1 / 3
    assert session_share(latest_sessions(conn, tmp_path, "s1"), "cmd/state.go") == 0.0
    conn.close()


def test_a_session_whose_transcript_was_never_read_says_nothing_of_use(
    db: Database, tmp_path: Path
) -> None:
    # Known only from what the hooks injected (it crashed before its end, or its transcript
    # is gone): no record of what it opened, so it did not leave the item alone.
    item = add_item(db, "The worker retries twice", files=["src/worker.ts"])

    def shown(row: dict[str, Any]) -> None:
        row["injected_ids"] = [item.entity_id]

    def shown_and_read(row: dict[str, Any]) -> None:
        row["injected_ids"] = [item.entity_id]
        row["data"]["files_read"] = []

    update_session(db, "s1", shown)
    update_session(db, "s2", shown)
    conn = open_store(db.url)
    assert conn is not None
    assert unused_items(conn, latest_sessions(conn, tmp_path)) == set()
    conn.close()
    update_session(db, "s3", shown_and_read)
    update_session(db, "s4", shown_and_read)  # two read transcripts, its file not opened
    conn = open_store(db.url)
    assert conn is not None
    assert unused_items(conn, latest_sessions(conn, tmp_path)) == {item.entity_id}
    conn.close()


def test_a_file_only_depending_on_the_work_gives_its_mistakes_and_patterns(
    db: Database, conn: ReadConnection
) -> None:
    # Ranking credits a dependent's Mistakes and Patterns only, so nothing else of it loads.
    own = add_item(db, "The parser keeps a stack", files=["parser.py"]).entity_id
    add_item(db, "The lexer caches tokens", files=["lexer.py"])
    rule = add_item(db, "Never reset the lexer mid-tag", type="Pattern", files=["lexer.py"])
    focus = Focus(files={"parser.py": 1.0}, dependents={"lexer.py": 1})
    assert sorted(i.id for i in gather(conn, focus)) == sorted([own, rule.entity_id])


def test_only_the_best_ranked_part_of_each_commit_is_kept(
    db: Database, conn: ReadConnection
) -> None:
    from kgraph.recall.items import load_items
    from kgraph.recall.readmodel import one_part_each
    from kgraph.recall.relevance import Ranked

    sha = "cd" * 20
    parts = [
        add_item(db, f"Spool push bodies — part {n}", source="commit", source_ref=ref)
        for n, ref in enumerate([sha, f"{sha}:1", f"{sha}:2"])
    ]
    typed = add_item(db, "Typed by hand about spooling", source="manual", source_ref=f"{sha}:3")
    other = add_item(db, "Another commit's item", source="commit", source_ref="ce" * 20)
    items = load_items(conn, [p.entity_id for p in [*parts, typed, other]])
    order = [parts[2], typed, parts[0], other, parts[1]]
    ranked = [Ranked(items[p.entity_id], 1.0, "") for p in order]
    kept = [r.item.id for r in one_part_each(conn, ranked)]
    assert kept == [parts[2].entity_id, typed.entity_id, other.entity_id]
