"""``kgraph workflow``: checkpoints an agent's skill writes so it can resume after compaction."""

from __future__ import annotations

import click

from kgraph import checkpoint
from kgraph.cli import checkpoints as commands
from kgraph.cli.checkpoints import short_time
from kgraph.cli.common import (
    ISSUE,
    MAX_DAYS,
    FiniteFloatRange,
    get_db,
    int_range,
    json_option,
    parse_json_object,
    print_json,
)


@click.group()
def workflow() -> None:
    """Workflow checkpoints: one issue's phase, status, actions and commits.

    \b
    Example (a skill resuming after compaction):
      ID=$(kgraph workflow create 123 feat/issue-123 --json | jq -r .id)
      kgraph workflow set-phase $ID implement
      kgraph workflow find 123 --json
    """


@workflow.command("create")
@click.argument("issue", type=ISSUE)
@click.argument("branch")
@click.option("--worktree", type=click.Path(), help="Worktree path the work happens in.")
@click.option(
    "--phase", type=click.Choice(checkpoint.PHASES), default="research", show_default=True
)
@json_option
@click.pass_context
def create_cmd(
    ctx: click.Context, issue: int, branch: str, worktree: str | None, phase: str, as_json: bool
) -> None:
    """Create a running workflow for ISSUE on BRANCH.

    Example: kgraph workflow create 123 feat/issue-123 --worktree ../wt-123
    """
    commands.workflow_create(get_db(ctx), issue, branch, worktree, phase, as_json)


@workflow.command("get")
@click.argument("workflow_id", metavar="ID")
@json_option
@click.pass_context
def get_cmd(ctx: click.Context, workflow_id: str, as_json: bool) -> None:
    """Show workflow ID with its actions and commits.

    Example: kgraph workflow get wf-3f9a2c1b7d04 --json
    """
    commands.workflow_get(get_db(ctx), workflow_id, as_json)


@workflow.command("find")
@click.argument("issue", type=ISSUE)
@json_option
@click.pass_context
def find_cmd(ctx: click.Context, issue: int, as_json: bool) -> None:
    """Find ISSUE's active workflow, else its most recent one.

    Prints `null` with --json (exit 0) when the issue has no workflow, so a skill can branch.

    Example: kgraph workflow find 123 --json
    """
    commands.workflow_find(get_db(ctx), issue, as_json)


@workflow.command("list")
@click.option("--status", type=click.Choice(checkpoint.STATUSES), help="Only this status.")
@click.option("--active", is_flag=True, help="Only running or paused workflows.")
@click.option("--limit", type=int_range(1), help="At most this many.")
@json_option
@click.pass_context
def list_cmd(
    ctx: click.Context, status: str | None, active: bool, limit: int | None, as_json: bool
) -> None:
    """List workflows, most recently updated first.

    Example: kgraph workflow list --active
    """
    commands.workflow_list(get_db(ctx), status, active, limit, as_json)


@workflow.command("set-phase", epilog=f"PHASE: {', '.join(checkpoint.PHASES)}")
@click.argument("workflow_id", metavar="ID")
@click.argument("phase", type=click.Choice(checkpoint.PHASES), metavar="PHASE")
@json_option
@click.pass_context
def set_phase_cmd(ctx: click.Context, workflow_id: str, phase: str, as_json: bool) -> None:
    """Set workflow ID's PHASE.

    Example: kgraph workflow set-phase wf-3f9a2c1b7d04 implement
    """
    commands.workflow_set_phase(get_db(ctx), workflow_id, phase, as_json)


@workflow.command("set-status", epilog=f"STATUS: {', '.join(checkpoint.STATUSES)}")
@click.argument("workflow_id", metavar="ID")
@click.argument("status", type=click.Choice(checkpoint.STATUSES), metavar="STATUS")
@json_option
@click.pass_context
def set_status_cmd(ctx: click.Context, workflow_id: str, status: str, as_json: bool) -> None:
    """Set workflow ID's STATUS (setting a failed workflow running counts a retry).

    Example: kgraph workflow set-status wf-3f9a2c1b7d04 completed
    """
    commands.workflow_set_status(get_db(ctx), workflow_id, status, as_json)


@workflow.command("log-action", epilog=f"RESULT: {', '.join(checkpoint.ACTION_RESULTS)}")
@click.argument("workflow_id", metavar="ID")
@click.argument("action")
@click.argument("result", type=click.Choice(checkpoint.ACTION_RESULTS), metavar="RESULT")
@click.option("--metadata", metavar="JSON", help="A JSON object stored with the action.")
@json_option
@click.pass_context
def log_action_cmd(
    ctx: click.Context,
    workflow_id: str,
    action: str,
    result: str,
    metadata: str | None,
    as_json: bool,
) -> None:
    """Record ACTION with its RESULT in workflow ID's audit log.

    Example: kgraph workflow log-action wf-3f9a2c1b7d04 run-tests failed --metadata '{"failed": 3}'
    """
    parsed = parse_json_object(metadata, "--metadata")
    commands.workflow_log_action(get_db(ctx), workflow_id, action, result, parsed, as_json)


@workflow.command("log-commit")
@click.argument("workflow_id", metavar="ID")
@click.argument("sha")
@click.argument("message")
@json_option
@click.pass_context
def log_commit_cmd(
    ctx: click.Context, workflow_id: str, sha: str, message: str, as_json: bool
) -> None:
    """Record commit SHA with its MESSAGE on workflow ID.

    Example: kgraph workflow log-commit wf-3f9a2c1b7d04 abc123 "feat: add parser"
    """
    commands.workflow_log_commit(get_db(ctx), workflow_id, sha, message, as_json)


@workflow.command("delete")
@click.argument("workflow_id", metavar="ID")
@json_option
@click.pass_context
def delete_cmd(ctx: click.Context, workflow_id: str, as_json: bool) -> None:
    """Delete workflow ID with its actions and commits.

    Example: kgraph workflow delete wf-3f9a2c1b7d04
    """
    checkpoint.delete_workflow(get_db(ctx), workflow_id)
    print_json({"deleted": workflow_id}) if as_json else click.echo(f"deleted {workflow_id}")


@workflow.command("cleanup")
@click.option(
    "--older-than",
    "older_than",
    type=FiniteFloatRange(0, MAX_DAYS),
    default=30,
    show_default=True,
    metavar="DAYS",
    help="Only workflows not updated for this many days.",
)
@click.option("--dry-run", is_flag=True, help="List what would be deleted, delete nothing.")
@json_option
@click.pass_context
def cleanup_cmd(ctx: click.Context, older_than: float, dry_run: bool, as_json: bool) -> None:
    """Delete completed and failed workflows older than DAYS (running/paused are kept).

    Example: kgraph workflow cleanup --older-than 14 --dry-run
    """
    records = checkpoint.cleanup_workflows(get_db(ctx), older_than, dry_run)
    if as_json:
        print_json({"dry_run": dry_run, "workflows": [r.to_dict() for r in records]})
        return
    verb = "would delete" if dry_run else "deleted"
    click.echo(f"{verb} {len(records)} workflow(s)")
    for r in records:
        click.echo(f"  {r.id}  issue {r.issue_number}  {r.status}  {short_time(r.updated_at)}")
