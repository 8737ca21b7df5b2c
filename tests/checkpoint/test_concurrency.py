"""Many short processes writing at once lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kgraph import checkpoint
from kgraph.db import Database

WRITER = """
import sys
from kgraph import checkpoint
from kgraph.db import open_database
db = open_database(sys.argv[1])
workflow_id, worker, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i in range(count):
    if i % 2:
        checkpoint.log_action(db, workflow_id, f"w{worker}-{i}", "success")
    else:
        checkpoint.log_commit(db, workflow_id, f"{worker}-{i}", "feat: x")
"""


def run_writers(code: str, db_url: str, workflow_id: str, writers: int, count: int) -> None:
    """``writers`` processes running ``code`` (DB URL, workflow, writer number, count) at
    once; each must exit 0."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, db_url, workflow_id, str(n), str(count)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(writers)
    ]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * writers, errors


def test_ten_processes_two_hundred_writes_each_lose_none(db: Database) -> None:
    """Ten machines' worth of writers on one database (a PostgreSQL server, or the SQLite
    file): every one of the 2,000 checkpoint writes is there afterwards."""
    writers, count = (10 if db.dialect == "postgresql" else 8), 200
    wf = checkpoint.create_workflow(db, 1, "b")
    run_writers(WRITER, db.url, wf.id, writers, count)
    got = checkpoint.get_workflow(db, wf.id)
    assert len(got.actions) + len(got.commits) == writers * count
    assert len({c.sha for c in got.commits}) == writers * count // 2
    assert len({a.action for a in got.actions}) == writers * count // 2


DIRECT_WRITER = """
import sys
from kgraph import checkpoint
from kgraph.db import open_direct
db = open_direct(sys.argv[1])
assert db is not None, "the database is up to date: the driver opens it"
workflow_id, worker, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
for i in range(count):
    checkpoint.log_action(db, workflow_id, f"w{worker}-{i}", "success", {"i": i})
db.close()
"""


def test_eight_writers_on_the_driver_alone_lose_none(db: Database) -> None:
    """What ``kgraph workflow log-action`` runs (kgraph.db.direct, no SQLAlchemy): 8
    processes x 50 actions on one workflow, every one stored, the workflow's updated_at
    moved by each."""
    writers, count = 8, 50
    wf = checkpoint.create_workflow(db, 2, "b")
    run_writers(DIRECT_WRITER, db.url, wf.id, writers, count)
    got = checkpoint.get_workflow(db, wf.id)
    assert len({a.action for a in got.actions}) == len(got.actions) == writers * count
    assert got.updated_at > wf.updated_at


def test_checkpoint_commands_at_once_lose_none(db: Database, db_path: Path, tmp_path: Path) -> None:
    """Four skills logging at once through the real ``kgraph`` command (its fast path):
    4 x 10 processes, every action stored."""
    writers, count = 4, 10
    wf = checkpoint.create_workflow(db, 3, "b")
    env = {**os.environ, "KGRAPH_DB": str(db_path) if db.dialect == "sqlite" else db.url}
    loop = (
        f"for i in $(seq {count}); do {sys.executable} -m kgraph.cli.entry workflow log-action "
        f'{wf.id} "w$0-$i" success || exit 1; done'
    )
    procs = [
        subprocess.Popen(
            ["sh", "-c", loop, str(n)], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL
        )
        for n in range(writers)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * writers
    got = checkpoint.get_workflow(db, wf.id)
    assert len({a.action for a in got.actions}) == writers * count


def test_first_open_of_a_new_project_by_many_processes_at_once(db_url: str, backend: str) -> None:
    """Six processes creating one project's schema at once: one migrates, the rest wait."""
    code = "import sys; from kgraph.db import open_database; open_database(sys.argv[1]).close()"
    procs = [
        subprocess.Popen([sys.executable, "-c", code, db_url], stderr=subprocess.PIPE)
        for _ in range(6)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else b"") for p in procs]
    assert all(rc == 0 for rc, _ in results), results


def test_first_open_by_many_processes_at_once(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    code = "import sys; from kgraph.db import open_database; open_database(sys.argv[1]).close()"
    procs = [
        subprocess.Popen([sys.executable, "-c", code, f"sqlite:///{path}"], stderr=subprocess.PIPE)
        for _ in range(6)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else b"") for p in procs]
    assert all(rc == 0 for rc, _ in results), results
    assert not list(tmp_path.glob("*.bak-*"))
