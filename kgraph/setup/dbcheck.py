"""The doctor's database checks: is the project's database there, usable, at this
kgraph's schema and intact; can it be written; and, on a server, how old is the hooks'
local copy of it.

Apart from :mod:`kgraph.setup.doctor` because these are the checks that open the database
(SQLAlchemy, the migrations, the models), while the wiring checks read settings files only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kgraph.setup.doctor import Check


def _database_files(root: Path, db_url: str | None) -> tuple[str, Path | None]:
    from kgraph.db.location import resolve_database_url, sqlite_path

    url = resolve_database_url(db_url, cwd=root)
    return url, sqlite_path(url)


def check_writable(root: Path, db_url: str | None = None) -> Check:
    """Can this user write the database and its folder? (A read-only one still serves
    briefings, but nothing is captured; in a read-only folder none can be created.)"""
    _, path = _database_files(root, db_url)
    if path is None:
        return Check("database writable", "ok", "not a file database")
    folder = path.parent if path.parent.is_dir() else path.parent.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        what = "no database can be created" if not path.exists() else "no capture is saved"
        return Check("database writable", "fail", f"{folder} is read-only: {what}")
    if path.exists() and not os.access(path, os.W_OK):
        return Check(
            "database writable", "fail", f"{path} is read-only: briefings work, no capture is saved"
        )
    return Check("database writable", "ok", f"{folder} and the database can be written")


def _schema_check(engine: Any, path: Path | None, where: str, revision: str | None) -> Check:
    """A database at another schema: what its next use will do. A file is upgraded on a
    copy first, so "upgraded on next use" is never said of one the upgrade refuses."""
    from kgraph.db.core import refuse_unknown, try_upgrade
    from kgraph.db.schema_version import HEAD_REVISION
    from kgraph.errors import KgraphError

    try:
        refuse_unknown(engine, where, revision)
        reason = try_upgrade(path) if path is not None else None
    except KgraphError as exc:
        reason = str(exc)
    if reason is not None:
        return Check("database", "fail", reason)
    tried = " (tried on a copy)" if path is not None else ""
    return Check(
        "database",
        "warn",
        f"{where}: schema {revision or 'none'}, this kgraph uses {HEAD_REVISION}: "
        f"upgraded on next use{tried}",
    )


def check_database(root: Path, db_url: str | None = None, *, full: bool = False) -> Check:
    """Present, usable, at this kgraph's schema, and intact (``PRAGMA quick_check``, or the
    slower ``integrity_check`` with ``full``)."""
    from kgraph.db.schema_version import HEAD_REVISION
    from kgraph.errors import KgraphError

    url, path = _database_files(root, db_url)
    if path is not None and not path.exists():
        return Check("database", "warn", f"{path} does not exist yet (created on first capture)")
    from sqlalchemy import func, select, text

    from kgraph.codegraph.store import failed_files
    from kgraph.db import migrate
    from kgraph.db.core import check_database_path, make_engine
    from kgraph.db.failures import describe_failure
    from kgraph.db.models import Entity, GraphFile, Session
    from kgraph.db.postgres import display_url
    from kgraph.knowledge.candidates import count_pending

    where = str(path) if path is not None else display_url(url)
    try:
        mode = check_database_path(path) if path is not None else None
        engine = make_engine(url, read_only=mode)
    except KgraphError as exc:
        return Check("database", "fail", str(exc))
    try:
        revision = migrate.current_revision(engine)
        if revision != HEAD_REVISION:
            return _schema_check(engine, path, where, revision)
        server = engine.dialect.name != "sqlite"
        pragma = "server" if server else "integrity_check" if full else "quick_check"
        with engine.connect() as conn:
            # A server checks its own pages; SQLite's file is checked here.
            problems = (
                ["ok"]
                if server
                else [str(r[0]) for r in conn.execute(text(f"PRAGMA {pragma}(20)"))]
            )
            if problems != ["ok"]:
                return Check(
                    "database",
                    "fail",
                    f"{where}: {pragma} found {len(problems)} problem(s), first: {problems[0]}; "
                    "restore a backup or move it aside",
                )
            items = conn.execute(select(func.count()).select_from(Entity)).scalar_one()
            sessions = conn.execute(select(func.count()).select_from(Session)).scalar_one()
            failed = len(failed_files(conn))  # code graph files whose analysis failed
            parsed = conn.execute(select(func.count()).select_from(GraphFile)).scalar_one()
            pending = count_pending(conn)
        # The prompt hook finds the code a prompt names through the graph.
        graph = (
            f"a code graph of {parsed} files" if parsed else "no code graph (kgraph graph parse .)"
        )
        return Check(
            "database",
            "warn" if failed else "ok",
            f"{where}: schema {revision}, "
            + ("" if server else f"{pragma} ok, ")
            + f"{items} entities, {sessions} sessions, {graph}"
            + (f"; {failed} code graph file(s) failed (kgraph graph summary)" if failed else "")
            + (f"; {pending} candidate(s) to review (kgraph knowledge review)" if pending else ""),
        )
    except Exception as exc:
        failure = describe_failure(exc, where)
        return Check("database", "fail", str(failure) if failure else f"{where}: {exc}")
    finally:
        engine.dispose()


def check_local_copy(root: Path, db_url: str | None = None) -> Check | None:
    """On a server: the local copy the hooks read (kgraph.db.mirror), and how old it is.
    None for a file database (the hooks read the file itself)."""
    from kgraph.db.location import is_server_url
    from kgraph.db.mirror import MIRROR_FILE, mirror_age
    from kgraph.runtime.state import state_dir

    url, _ = _database_files(root, db_url)
    if not is_server_url(url):
        return None
    folder = state_dir(root)
    age = mirror_age(folder, url)
    if age is None:
        return Check(
            "local copy",
            "warn",
            "none yet: the hooks read the server (slower) until the capture worker makes one "
            "(it does after the next session start)",
        )
    size = (folder / MIRROR_FILE).stat().st_size / 1e6
    return Check(
        "local copy",
        "ok",
        f"{folder / MIRROR_FILE}: {size:.1f} MB, refreshed {age:.0f} s ago; the file and prompt "
        "hooks read it, session-start too while it is recent",
    )
