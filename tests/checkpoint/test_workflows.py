from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from kgraph import checkpoint
from kgraph.db import Database
from kgraph.db.models import Action, Workflow, utcnow
from kgraph.errors import InvalidValueError, NotFoundError


def test_create_then_get_round_trips(db: Database) -> None:
    created = checkpoint.create_workflow(db, 123, "feat/issue-123", worktree="/wt/123")
    got = checkpoint.get_workflow(db, created.id)
    assert got == created
    assert (got.issue_number, got.branch, got.worktree) == (123, "feat/issue-123", "/wt/123")
    assert (got.phase, got.status, got.retry_count) == ("research", "running", 0)
    assert got.id.startswith("wf-")


def test_actions_and_commits_are_kept_in_order(db: Database) -> None:
    wf = checkpoint.create_workflow(db, 1, "b")
    checkpoint.log_action(db, wf.id, "plan", "success")
    checkpoint.log_action(db, wf.id, "tests", "failed", {"failed": 3})
    checkpoint.log_commit(db, wf.id, "abc123", "feat: add parser")
    got = checkpoint.get_workflow(db, wf.id)
    assert [(a.action, a.result, a.metadata) for a in got.actions] == [
        ("plan", "success", None),
        ("tests", "failed", {"failed": 3}),
    ]
    assert [(c.sha, c.message) for c in got.commits] == [("abc123", "feat: add parser")]


def test_every_change_moves_updated_at(db: Database) -> None:
    wf = checkpoint.create_workflow(db, 1, "b")
    stamps = [wf.updated_at]
    stamps.append(checkpoint.set_phase(db, wf.id, "implement").updated_at)
    stamps.append(checkpoint.log_action(db, wf.id, "x", "pending").updated_at)
    stamps.append(checkpoint.log_commit(db, wf.id, "s", "m").updated_at)
    stamps.append(checkpoint.set_status(db, wf.id, "paused").updated_at)
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def test_retry_count_increments_only_from_failed_to_running(db: Database) -> None:
    wf = checkpoint.create_workflow(db, 1, "b")
    assert checkpoint.set_status(db, wf.id, "paused").retry_count == 0
    assert checkpoint.set_status(db, wf.id, "running").retry_count == 0
    checkpoint.set_status(db, wf.id, "failed")
    assert checkpoint.set_status(db, wf.id, "running").retry_count == 1
    checkpoint.set_status(db, wf.id, "failed")
    assert checkpoint.set_status(db, wf.id, "running").retry_count == 2


def test_find_prefers_active_then_most_recent(db: Database) -> None:
    assert checkpoint.find_workflow(db, 7) is None
    old = checkpoint.create_workflow(db, 7, "a")
    checkpoint.set_status(db, old.id, "completed")
    newer_done = checkpoint.create_workflow(db, 7, "b")
    checkpoint.set_status(db, newer_done.id, "failed")
    found = checkpoint.find_workflow(db, 7)
    assert found is not None and found.id == newer_done.id
    active = checkpoint.create_workflow(db, 7, "c")
    checkpoint.set_status(db, newer_done.id, "failed")  # touched after active, still finished
    found = checkpoint.find_workflow(db, 7)
    assert found is not None and found.id == active.id
    assert checkpoint.find_workflow(db, 8) is None


def test_find_for_branch_returns_active_only(db: Database) -> None:
    wf = checkpoint.create_workflow(db, 3, "feat/3-x")
    found = checkpoint.find_workflow_for_branch(db, "feat/3-x")
    assert found is not None and found.id == wf.id
    checkpoint.set_status(db, wf.id, "completed")
    assert checkpoint.find_workflow_for_branch(db, "feat/3-x") is None


def test_list_filters(db: Database) -> None:
    a = checkpoint.create_workflow(db, 1, "a")
    b = checkpoint.create_workflow(db, 2, "b")
    checkpoint.set_status(db, b.id, "completed")
    assert [w.id for w in checkpoint.list_workflows(db, active=True)] == [a.id]
    assert [w.id for w in checkpoint.list_workflows(db, status="completed")] == [b.id]
    assert [w.id for w in checkpoint.list_workflows(db)] == [b.id, a.id]
    assert len(checkpoint.list_workflows(db, limit=1)) == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda db, wid: checkpoint.set_phase(db, wid, "coding"), "invalid phase 'coding'"),
        (lambda db, wid: checkpoint.set_status(db, wid, "done"), "invalid status 'done'"),
        (lambda db, wid: checkpoint.log_action(db, wid, "x", "ok"), "invalid result 'ok'"),
    ],
)
def test_bad_values_name_the_allowed_ones(db: Database, call, message: str) -> None:  # type: ignore[no-untyped-def]
    wf = checkpoint.create_workflow(db, 1, "b")
    with pytest.raises(InvalidValueError, match=message) as info:
        call(db, wf.id)
    assert "allowed:" in str(info.value)


def test_unknown_id_is_not_found(db: Database) -> None:
    with pytest.raises(NotFoundError, match="no workflow wf-nope"):
        checkpoint.get_workflow(db, "wf-nope")
    with pytest.raises(NotFoundError):
        checkpoint.log_commit(db, "wf-nope", "sha", "m")


def test_delete_cascades_to_children(db: Database) -> None:
    wf = checkpoint.create_workflow(db, 1, "b")
    checkpoint.log_action(db, wf.id, "x", "success")
    checkpoint.log_commit(db, wf.id, "s", "m")
    checkpoint.delete_workflow(db, wf.id)
    assert (
        db.read(lambda c: c.execute(select(func.count()).select_from(Action.__table__)).scalar())
        == 0
    )
    with pytest.raises(NotFoundError):
        checkpoint.get_workflow(db, wf.id)


def test_cleanup_removes_only_old_finished_workflows(db: Database) -> None:
    old_done = checkpoint.create_workflow(db, 1, "a")
    checkpoint.set_status(db, old_done.id, "completed")
    old_running = checkpoint.create_workflow(db, 2, "b")
    fresh_failed = checkpoint.create_workflow(db, 3, "c")
    checkpoint.set_status(db, fresh_failed.id, "failed")
    long_ago = utcnow() - timedelta(days=40)
    db.write(
        lambda s: s.execute(
            update(Workflow.__table__)
            .where(Workflow.__table__.c.id.in_([old_done.id, old_running.id]))
            .values(updated_at=long_ago)
        )
    )
    dry = checkpoint.cleanup_workflows(db, older_than_days=30, dry_run=True)
    assert [w.id for w in dry] == [old_done.id]
    assert len(checkpoint.list_workflows(db)) == 3
    done = checkpoint.cleanup_workflows(db, older_than_days=30)
    assert [w.id for w in done] == [old_done.id]
    assert {w.id for w in checkpoint.list_workflows(db)} == {old_running.id, fresh_failed.id}
