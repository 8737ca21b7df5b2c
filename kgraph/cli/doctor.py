"""``kgraph doctor``: check the Claude Code wiring, the database and the hook budgets."""

from __future__ import annotations

import click

from kgraph.cli.common import json_option, print_json, table


@click.command("doctor")
@click.option("--no-hook-run", is_flag=True, help="Skip the timed sample hook runs.")
@click.option(
    "--full", is_flag=True, help="PRAGMA integrity_check (slower) instead of quick_check."
)
@json_option
@click.pass_context
def doctor(ctx: click.Context, no_hook_run: bool, full: bool, as_json: bool) -> None:
    """Check wiring, executable, database health, schema and writability, and sample hook
    runs against the timeouts installed for them.

    Exits 1 when any check fails.

    \b
    Example:
      kgraph doctor
      kgraph doctor --full --no-hook-run
      kgraph doctor --json | jq '.checks[] | select(.status != "ok")'
    """
    from pathlib import Path

    from kgraph.setup import run_doctor

    obj = ctx.find_root().obj
    db_url = obj.get("db_url") if isinstance(obj, dict) else None
    checks = run_doctor(Path.cwd(), db_url, run_hooks=not no_hook_run, full=full)
    failed = [c for c in checks if c.status == "fail"]
    if as_json:
        print_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    else:
        table(
            "kgraph doctor",
            ["check", "status", "detail"],
            [[c.name, c.status, c.detail] for c in checks],
        )
        warned = sum(1 for c in checks if c.status == "warn")
        click.echo(
            f"{len(failed)} failed, {warned} warnings, {len(checks) - len(failed) - warned} ok"
        )
    if failed:
        ctx.exit(1)
