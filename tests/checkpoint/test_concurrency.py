"""Many short processes writing at once lose nothing."""

from __future__ import annotations

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


def test_ten_processes_two_hundred_writes_each_lose_none(db: Database) -> None:
    """Ten machines' worth of writers on one database (a PostgreSQL server, or the SQLite
    file): every one of the 2,000 checkpoint writes is there afterwards."""
    writers, count = (10 if db.dialect == "postgresql" else 8), 200
    wf = checkpoint.create_workflow(db, 1, "b")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, db.url, wf.id, str(n), str(count)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(writers)
    ]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * writers, errors
    got = checkpoint.get_workflow(db, wf.id)
    assert len(got.actions) + len(got.commits) == writers * count
    assert len({c.sha for c in got.commits}) == writers * count // 2
    assert len({a.action for a in got.actions}) == writers * count // 2


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
