"""``kgraph milestone`` and ``kgraph baseline``: coordinating several workflows in waves."""

from __future__ import annotations

import click

from kgraph import checkpoint
from kgraph.checkpoint import BaselineRecord
from kgraph.cli import checkpoints as commands
from kgraph.cli.checkpoints import short_time
from kgraph.cli.common import ISSUE, get_db, int_range, json_option, print_json, table


@click.group()
def milestone() -> None:
    """Milestones: several issues' workflows run in waves.

    \b
    Example:
      MS=$(kgraph milestone create "v1.2" --github-number 7 --json | jq -r .id)
      kgraph milestone add-workflow $MS wf-3f9a2c1b7d04 --wave 1
    """


@milestone.command("create")
@click.argument("name")
@click.option("--github-number", type=ISSUE, help="The GitHub milestone number.")
@click.option(
    "--phase", type=click.Choice(checkpoint.PHASES), default="planning", show_default=True
)
@json_option
@click.pass_context
def create_cmd(
    ctx: click.Context, name: str, github_number: int | None, phase: str, as_json: bool
) -> None:
    """Create a running milestone called NAME.

    Example: kgraph milestone create "v1.2" --github-number 7
    """
    commands.milestone_create(get_db(ctx), name, github_number, phase, as_json)


@milestone.command("get")
@click.argument("milestone_id", metavar="ID")
@json_option
@click.pass_context
def get_cmd(ctx: click.Context, milestone_id: str, as_json: bool) -> None:
    """Show milestone ID with its workflows.

    Example: kgraph milestone get ms-0c1d2e3f4a5b --json
    """
    commands.milestone_get(get_db(ctx), milestone_id, as_json)


@milestone.command("find")
@click.argument("name")
@json_option
@click.pass_context
def find_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """Find the active milestone called NAME, else the most recent one (null with --json).

    Example: kgraph milestone find "v1.2" --json
    """
    commands.milestone_find(get_db(ctx), name, as_json)


@milestone.command("list")
@click.option("--status", type=click.Choice(checkpoint.STATUSES), help="Only this status.")
@json_option
@click.pass_context
def list_cmd(ctx: click.Context, status: str | None, as_json: bool) -> None:
    """List milestones, most recently updated first.

    Example: kgraph milestone list --status running
    """
    commands.milestone_list(get_db(ctx), status, as_json)


@milestone.command("set-phase", epilog=f"PHASE: {', '.join(checkpoint.PHASES)}")
@click.argument("milestone_id", metavar="ID")
@click.argument("phase", type=click.Choice(checkpoint.PHASES), metavar="PHASE")
@json_option
@click.pass_context
def set_phase_cmd(ctx: click.Context, milestone_id: str, phase: str, as_json: bool) -> None:
    """Set milestone ID's PHASE.

    Example: kgraph milestone set-phase ms-0c1d2e3f4a5b execute
    """
    commands.milestone_set_phase(get_db(ctx), milestone_id, phase, as_json)


@milestone.command("set-status", epilog=f"STATUS: {', '.join(checkpoint.STATUSES)}")
@click.argument("milestone_id", metavar="ID")
@click.argument("status", type=click.Choice(checkpoint.STATUSES), metavar="STATUS")
@json_option
@click.pass_context
def set_status_cmd(ctx: click.Context, milestone_id: str, status: str, as_json: bool) -> None:
    """Set milestone ID's STATUS.

    Example: kgraph milestone set-status ms-0c1d2e3f4a5b completed
    """
    commands.milestone_set_status(get_db(ctx), milestone_id, status, as_json)


@milestone.command("add-workflow")
@click.argument("milestone_id", metavar="MILESTONE")
@click.argument("workflow_id", metavar="WORKFLOW")
@click.option("--wave", type=int_range(1), required=True, help="Wave number (1 first).")
@json_option
@click.pass_context
def add_workflow_cmd(
    ctx: click.Context, milestone_id: str, workflow_id: str, wave: int, as_json: bool
) -> None:
    """Put WORKFLOW in MILESTONE's wave N.

    Example: kgraph milestone add-workflow ms-0c1d2e3f4a5b wf-3f9a2c1b7d04 --wave 2
    """
    commands.milestone_add_workflow(get_db(ctx), milestone_id, workflow_id, wave, as_json)


@milestone.command("delete")
@click.argument("milestone_id", metavar="ID")
@json_option
@click.pass_context
def delete_cmd(ctx: click.Context, milestone_id: str, as_json: bool) -> None:
    """Delete milestone ID with its baselines (its workflows stay).

    Example: kgraph milestone delete ms-0c1d2e3f4a5b
    """
    checkpoint.delete_milestone(get_db(ctx), milestone_id)
    print_json({"deleted": milestone_id}) if as_json else click.echo(f"deleted {milestone_id}")


def _show_baseline(record: BaselineRecord, as_json: bool) -> None:
    if as_json:
        print_json(record.to_dict())
        return
    table(
        f"Baseline of {record.milestone_id}",
        ["lint exit", "lint warnings", "lint errors", "typecheck exit", "typecheck errors", "at"],
        [
            [
                record.lint_exit_code,
                record.lint_warnings,
                record.lint_errors,
                record.typecheck_exit_code,
                record.typecheck_errors,
                short_time(record.captured_at),
            ]
        ],
    )


@click.group()
def baseline() -> None:
    """Lint/typecheck baselines taken before a milestone starts.

    \b
    Example:
      kgraph baseline save ms-0c1d2e3f4a5b --lint-exit-code 1 --lint-warnings 12 \\
        --lint-errors 0 --typecheck-exit-code 0 --typecheck-errors 0
      kgraph baseline show ms-0c1d2e3f4a5b --json
    """


@baseline.command("save")
@click.argument("milestone_id", metavar="MILESTONE")
@click.option("--lint-exit-code", type=int_range(), required=True)
@click.option("--lint-warnings", type=int_range(0), required=True)
@click.option("--lint-errors", type=int_range(0), required=True)
@click.option("--typecheck-exit-code", type=int_range(), required=True)
@click.option("--typecheck-errors", type=int_range(0), required=True)
@json_option
@click.pass_context
def save_cmd(
    ctx: click.Context,
    milestone_id: str,
    lint_exit_code: int,
    lint_warnings: int,
    lint_errors: int,
    typecheck_exit_code: int,
    typecheck_errors: int,
    as_json: bool,
) -> None:
    """Save MILESTONE's lint and typecheck baseline.

    Example: kgraph baseline save ms-0c1d2e3f4a5b --lint-exit-code 0 --lint-warnings 3
    --lint-errors 0 --typecheck-exit-code 0 --typecheck-errors 0
    """
    record = checkpoint.save_baseline(
        get_db(ctx),
        milestone_id,
        lint_exit_code=lint_exit_code,
        lint_warnings=lint_warnings,
        lint_errors=lint_errors,
        typecheck_exit_code=typecheck_exit_code,
        typecheck_errors=typecheck_errors,
    )
    _show_baseline(record, as_json)


@baseline.command("show")
@click.argument("milestone_id", metavar="MILESTONE")
@json_option
@click.pass_context
def show_cmd(ctx: click.Context, milestone_id: str, as_json: bool) -> None:
    """Show MILESTONE's most recent baseline.

    Example: kgraph baseline show ms-0c1d2e3f4a5b --json
    """
    _show_baseline(checkpoint.latest_baseline(get_db(ctx), milestone_id), as_json)
