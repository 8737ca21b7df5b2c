"""Opening a database: paths checked first, read-only files read, damaged files one line,
and never a pile of backups from commands that keep failing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from alembic import command
from kgraph.checkpoint import create_workflow, list_workflows
from kgraph.db import core, open_database
from kgraph.db.migrate import alembic_config
from kgraph.errors import DatabaseError, InvalidValueError, SchemaTooNewError


def corrupt_body(path: Path) -> None:
    """Overwrite everything after the first two pages: the header still says SQLite."""
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.seek(8192)
        handle.write(os.urandom(max(0, size - 8192)))


def filled(path: Path) -> Path:
    db = open_database(f"sqlite:///{path}")
    for issue in range(40):
        create_workflow(db, issue, f"feat/{issue}-" + "x" * 200)
    db.close()
    return path


def deny_writes(monkeypatch: pytest.MonkeyPatch, *denied: Path) -> None:
    """Make the process see ``denied`` as not writable (tests run as root, where chmod
    changes nothing); SQLite then enforces read-only through the open mode itself."""
    real = os.access

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and Path(str(path)) in denied:
            return False
        return real(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(core.os, "access", access)


def test_a_missing_folder_is_an_error_not_a_new_database(tmp_path: Path) -> None:
    with pytest.raises(InvalidValueError, match="does not exist"):
        open_database(f"sqlite:///{tmp_path / 'typo' / 'x.db'}")
    assert not (tmp_path / "typo").exists()


def test_the_projects_own_claude_folder_is_created(tmp_path: Path) -> None:
    open_database(f"sqlite:///{tmp_path / '.claude' / 'execution-state.db'}").close()
    assert (tmp_path / ".claude" / "execution-state.db").is_file()
    with pytest.raises(InvalidValueError):  # but not a whole missing project
        open_database(f"sqlite:///{tmp_path / 'gone' / '.claude' / 'execution-state.db'}")


def test_paths_that_cannot_be_databases(tmp_path: Path) -> None:
    with pytest.raises(InvalidValueError, match="directory"):
        open_database(f"sqlite:///{tmp_path}")
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    with pytest.raises(InvalidValueError, match="not a regular file"):
        open_database(f"sqlite:///{fifo}")
    with pytest.raises(InvalidValueError, match="cannot use database URL"):
        open_database("nosuchdb://")


def test_a_read_only_file_opens_read_only(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    filled(db_path)
    deny_writes(monkeypatch, db_path)
    db = open_database(f"sqlite:///{db_path}")
    assert db.read_only and len(list_workflows(db)) == 40
    with pytest.raises(DatabaseError, match="is read-only"):
        create_workflow(db, 1, "main")
    db.close()


def test_a_read_only_folder_opens_immutable(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    filled(db_path)
    deny_writes(monkeypatch, db_path.parent)
    db = open_database(f"sqlite:///{db_path}")
    assert db.read_only and len(list_workflows(db)) == 40
    db.close()
    assert not list(db_path.parent.glob("*-wal"))  # nothing was created beside it
    with pytest.raises(DatabaseError, match="read-only"):
        open_database(f"sqlite:///{db_path.parent / 'new.db'}")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_real_permissions(db_path: Path) -> None:  # pragma: no cover - runs as non-root
    filled(db_path)
    db_path.chmod(0o444)
    db = open_database(f"sqlite:///{db_path}")
    assert db.read_only and len(list_workflows(db)) == 40
    db.close()
    db_path.chmod(0o000)
    with pytest.raises(DatabaseError, match="permission denied"):
        open_database(f"sqlite:///{db_path}")


def test_a_damaged_body_is_one_line(db_path: Path) -> None:
    corrupt_body(filled(db_path))
    with pytest.raises(DatabaseError) as caught:
        db = open_database(f"sqlite:///{db_path}")
        list_workflows(db)
    message = str(caught.value)
    assert "\n" not in message and "is damaged" in message and str(db_path) in message


def test_invalid_text_in_a_row_is_one_line(db_path: Path) -> None:
    filled(db_path)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE workflows SET branch = CAST(x'c3ff' AS TEXT)")
    db = open_database(f"sqlite:///{db_path}")
    with pytest.raises(DatabaseError, match="not valid UTF-8"):
        list_workflows(db)
    db.close()


def _backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.bak-*"))


def test_a_newer_database_is_refused_without_a_copy(db_path: Path) -> None:
    open_database(f"sqlite:///{db_path}").close()
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    for _ in range(3):
        with pytest.raises(SchemaTooNewError, match="upgrade kgraph"):
            open_database(f"sqlite:///{db_path}")
    assert _backups(db_path) == []


def test_kgraph_tables_without_a_version_are_refused_without_a_copy(db_path: Path) -> None:
    open_database(f"sqlite:///{db_path}").close()
    with sqlite3.connect(db_path) as conn:
        conn.execute("DROP TABLE alembic_version")
    for _ in range(3):
        with pytest.raises(DatabaseError, match="no schema version"):
            open_database(f"sqlite:///{db_path}")
    assert _backups(db_path) == []


def test_a_pre_release_0001_layout_is_refused_in_one_line_with_one_copy(tmp_path: Path) -> None:
    path = tmp_path / "early.db"
    engine = create_engine(f"sqlite:///{path}")
    command.upgrade(alembic_config(engine), "0001")
    engine.dispose()
    with sqlite3.connect(path) as conn:  # the early pre-release had no to_file column
        conn.execute("DROP INDEX ix_graph_relationships_to_file")
        conn.execute("ALTER TABLE graph_relationships DROP COLUMN to_file")
    for _ in range(3):
        with pytest.raises(DatabaseError) as caught:
            open_database(f"sqlite:///{path}")
        message = str(caught.value)
        assert "\n" not in message and "from schema 0001" in message and "to_file" in message
    backups = _backups(path)
    assert len(backups) == 1 and str(backups[0]) in message


def test_one_copy_per_revision_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    path.write_bytes(b"")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    first = core.backup_before_upgrade(path, "none")
    assert core.backup_before_upgrade(path, "none") == first
    with sqlite3.connect(path) as conn:
        conn.executemany("INSERT INTO notes VALUES (?)", [("x" * 2000,)] * 20)
    assert core.backup_before_upgrade(path, "none") != first
    assert len(_backups(path)) == 2
