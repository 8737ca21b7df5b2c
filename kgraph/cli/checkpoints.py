"""What the ``kgraph workflow`` and ``kgraph milestone`` commands do and print, without Click.

Each command a skill runs is one function here, taking the database and the values parsed
from its command line. The Click commands (kgraph.cli.workflow, kgraph.cli.milestone) call
it once Click has parsed the line; kgraph.cli.checkpoint_fast calls it for the exact lines
a skill runs, without Click or SQLAlchemy (on a kgraph.db.DirectDatabase). One body per
command, so the two ways print the same and fail the same.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kgraph import checkpoint
from kgraph.cli.plain import echo, print_json, table
from kgraph.redact import redact

if TYPE_CHECKING:  # a workflow command loads no milestone code, and the reverse
    from kgraph.checkpoint import MilestoneRecord, WorkflowRecord
    from kgraph.db import Transactions


def short_time(value: datetime | None) -> str:
    """A time for tables: local-free UTC to the minute, e.g. ``2026-11-22 04:30``."""
    return "" if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def show_workflow(record: WorkflowRecord, as_json: bool) -> None:
    if as_json:
        print_json(record.to_dict())
        return
    table(
        f"Workflow {record.id}",
        ["issue", "branch", "phase", "status", "retries", "worktree", "updated"],
        [
            [
                record.issue_number,
                record.branch,
                record.phase,
                record.status,
                record.retry_count,
                record.worktree,
                short_time(record.updated_at),
            ]
        ],
    )
    if record.actions:
        table(
            "Actions",
            ["#", "action", "result", "metadata", "at"],
            [
                [a.id, a.action, a.result, a.metadata, short_time(a.created_at)]
                for a in record.actions
            ],
        )
    if record.commits:
        table(
            "Commits",
            ["sha", "message", "at"],
            [[c.sha, c.message, short_time(c.created_at)] for c in record.commits],
        )


def workflow_create(
    db: Transactions, issue: int, branch: str, worktree: str | None, phase: str, as_json: bool
) -> None:
    record = checkpoint.create_workflow(db, issue, branch, worktree, phase)
    print_json(record.to_dict()) if as_json else echo(record.id)


def workflow_get(db: Transactions, workflow_id: str, as_json: bool) -> None:
    show_workflow(checkpoint.get_workflow(db, workflow_id), as_json)


def workflow_find(db: Transactions, issue: int, as_json: bool) -> None:
    record = checkpoint.find_workflow(db, issue)
    if record is not None:
        show_workflow(record, as_json)
    elif as_json:
        print_json(None)
    else:
        echo(f"no workflow for issue {issue}")


def workflow_list(
    db: Transactions, status: str | None, active: bool, limit: int | None, as_json: bool
) -> None:
    records = checkpoint.list_workflows(db, status=status, active=active, limit=limit)
    if as_json:
        print_json([r.to_dict() for r in records])
        return
    table(
        "Workflows",
        ["id", "issue", "branch", "phase", "status", "retries", "actions", "commits", "updated"],
        [
            [
                r.id,
                r.issue_number,
                r.branch,
                r.phase,
                r.status,
                r.retry_count,
                len(r.actions),
                len(r.commits),
                short_time(r.updated_at),
            ]
            for r in records
        ],
    )


def workflow_set_phase(db: Transactions, workflow_id: str, phase: str, as_json: bool) -> None:
    record = checkpoint.set_phase(db, workflow_id, phase)
    print_json(record.to_dict()) if as_json else echo(f"{record.id}: phase {record.phase}")


def workflow_set_status(db: Transactions, workflow_id: str, status: str, as_json: bool) -> None:
    record = checkpoint.set_status(db, workflow_id, status)
    if as_json:
        print_json(record.to_dict())
    else:
        echo(f"{record.id}: status {record.status} (retries {record.retry_count})")


def workflow_log_action(
    db: Transactions,
    workflow_id: str,
    action: str,
    result: str,
    metadata: dict[str, Any] | None,
    as_json: bool,
) -> None:
    record = checkpoint.log_action(db, workflow_id, action, result, metadata)
    if as_json:
        print_json(record.to_dict())
    else:  # what was stored: the agent's transcript keeps this line
        echo(f"{record.id}: logged {redact(action, thorough=True)} ({result})")


def workflow_log_commit(
    db: Transactions, workflow_id: str, sha: str, message: str, as_json: bool
) -> None:
    record = checkpoint.log_commit(db, workflow_id, sha, message)
    if as_json:
        print_json(record.to_dict())
    else:
        echo(f"{record.id}: logged commit {redact(sha, thorough=True)}")


def show_milestone(record: MilestoneRecord, as_json: bool) -> None:
    if as_json:
        print_json(record.to_dict())
        return
    table(
        f"Milestone {record.id}",
        ["name", "github #", "phase", "status", "updated"],
        [
            [
                record.name,
                record.github_milestone_number,
                record.phase,
                record.status,
                short_time(record.updated_at),
            ]
        ],
    )
    table(
        "Workflows",
        ["wave", "workflow", "issue", "phase", "status"],
        [
            [w.wave_number, w.workflow_id, w.issue_number, w.phase, w.status]
            for w in record.workflows
        ],
    )


def milestone_create(
    db: Transactions, name: str, github_number: int | None, phase: str, as_json: bool
) -> None:
    record = checkpoint.create_milestone(db, name, github_number, phase)
    print_json(record.to_dict()) if as_json else echo(record.id)


def milestone_get(db: Transactions, milestone_id: str, as_json: bool) -> None:
    show_milestone(checkpoint.get_milestone(db, milestone_id), as_json)


def milestone_find(db: Transactions, name: str, as_json: bool) -> None:
    record = checkpoint.find_milestone(db, name)
    if record is not None:
        show_milestone(record, as_json)
    elif as_json:
        print_json(None)
    else:
        echo(f"no milestone named {name!r}")


def milestone_list(db: Transactions, status: str | None, as_json: bool) -> None:
    records = checkpoint.list_milestones(db, status)
    if as_json:
        print_json([r.to_dict() for r in records])
        return
    table(
        "Milestones",
        ["id", "name", "github #", "phase", "status", "workflows", "updated"],
        [
            [
                r.id,
                r.name,
                r.github_milestone_number,
                r.phase,
                r.status,
                len(r.workflows),
                short_time(r.updated_at),
            ]
            for r in records
        ],
    )


def milestone_set_phase(db: Transactions, milestone_id: str, phase: str, as_json: bool) -> None:
    record = checkpoint.set_milestone_phase(db, milestone_id, phase)
    print_json(record.to_dict()) if as_json else echo(f"{record.id}: phase {record.phase}")


def milestone_set_status(db: Transactions, milestone_id: str, status: str, as_json: bool) -> None:
    record = checkpoint.set_milestone_status(db, milestone_id, status)
    print_json(record.to_dict()) if as_json else echo(f"{record.id}: status {record.status}")


def milestone_add_workflow(
    db: Transactions, milestone_id: str, workflow_id: str, wave: int, as_json: bool
) -> None:
    record = checkpoint.add_workflow_to_milestone(db, milestone_id, workflow_id, wave)
    if as_json:
        print_json(record.to_dict())
    else:
        echo(f"{record.id}: {workflow_id} in wave {wave}")
