from __future__ import annotations

import pytest

from kgraph import checkpoint
from kgraph.db import Database
from kgraph.errors import NotFoundError


def test_milestone_lifecycle_with_waves(db: Database) -> None:
    ms = checkpoint.create_milestone(db, "v1.2", github_number=7)
    assert (ms.name, ms.github_milestone_number, ms.phase, ms.status) == (
        "v1.2",
        7,
        "planning",
        "running",
    )
    a = checkpoint.create_workflow(db, 1, "a")
    b = checkpoint.create_workflow(db, 2, "b")
    checkpoint.add_workflow_to_milestone(db, ms.id, b.id, wave=2)
    got = checkpoint.add_workflow_to_milestone(db, ms.id, a.id, wave=1)
    assert [(w.workflow_id, w.wave_number, w.issue_number) for w in got.workflows] == [
        (a.id, 1, 1),
        (b.id, 2, 2),
    ]
    moved = checkpoint.add_workflow_to_milestone(db, ms.id, a.id, wave=3)
    assert [(w.workflow_id, w.wave_number) for w in moved.workflows] == [(b.id, 2), (a.id, 3)]
    assert checkpoint.set_milestone_phase(db, ms.id, "execute").phase == "execute"
    assert checkpoint.set_milestone_status(db, ms.id, "completed").status == "completed"
    found = checkpoint.find_milestone(db, "v1.2")
    assert found is not None and found.id == ms.id
    assert checkpoint.find_milestone(db, "v9") is None


def test_deleting_a_milestone_keeps_its_workflows(db: Database) -> None:
    ms = checkpoint.create_milestone(db, "m")
    wf = checkpoint.create_workflow(db, 1, "a")
    checkpoint.add_workflow_to_milestone(db, ms.id, wf.id, wave=1)
    checkpoint.save_baseline(db, ms.id, lint_exit_code=0)
    checkpoint.delete_milestone(db, ms.id)
    assert checkpoint.get_workflow(db, wf.id).id == wf.id
    assert checkpoint.list_milestones(db) == []


def test_deleting_a_workflow_unlinks_it(db: Database) -> None:
    ms = checkpoint.create_milestone(db, "m")
    wf = checkpoint.create_workflow(db, 1, "a")
    checkpoint.add_workflow_to_milestone(db, ms.id, wf.id, wave=1)
    checkpoint.delete_workflow(db, wf.id)
    assert checkpoint.get_milestone(db, ms.id).workflows == ()


def test_baselines_latest_wins(db: Database) -> None:
    ms = checkpoint.create_milestone(db, "m")
    with pytest.raises(NotFoundError, match="no baseline"):
        checkpoint.latest_baseline(db, ms.id)
    checkpoint.save_baseline(db, ms.id, lint_exit_code=1, lint_warnings=12, lint_errors=2)
    checkpoint.save_baseline(
        db,
        ms.id,
        lint_exit_code=0,
        lint_warnings=3,
        lint_errors=0,
        typecheck_exit_code=0,
        typecheck_errors=0,
    )
    latest = checkpoint.latest_baseline(db, ms.id)
    assert (latest.lint_exit_code, latest.lint_warnings, latest.typecheck_errors) == (0, 3, 0)


def test_unknown_ids(db: Database) -> None:
    ms = checkpoint.create_milestone(db, "m")
    with pytest.raises(NotFoundError, match="no milestone ms-x"):
        checkpoint.get_milestone(db, "ms-x")
    with pytest.raises(NotFoundError, match="no workflow wf-x"):
        checkpoint.add_workflow_to_milestone(db, ms.id, "wf-x", wave=1)
    with pytest.raises(NotFoundError):
        checkpoint.save_baseline(db, "ms-x", lint_exit_code=0)
