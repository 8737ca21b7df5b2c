"""The root ``kgraph`` group.

Subcommand modules are imported only when their command runs, so ``kgraph hook ...`` never
pays for what ``kgraph graph ...`` imports. Errors a person can cause (KgraphError) become a
one-line ``Error: ...`` on stderr with the error's exit code; an unexpected exception is one
line too, with the traceback behind ``KGRAPH_DEBUG=1``.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from kgraph import __version__
from kgraph.cli.failures import failure_exit

# command name -> "module:attribute". Add a group here to add it to the CLI.
SUBCOMMANDS: dict[str, str] = {
    "workflow": "kgraph.cli.workflow:workflow",
    "milestone": "kgraph.cli.milestone:milestone",
    "baseline": "kgraph.cli.milestone:baseline",
    "hook": "kgraph.cli.hook:hook",
    "install": "kgraph.cli.install:install_command",
    "doctor": "kgraph.cli.doctor:doctor",
    "metrics": "kgraph.cli.metrics:metrics",
    "knowledge": "kgraph.cli.knowledge:knowledge",
    "learn": "kgraph.cli.learn:learn",
    "search": "kgraph.cli.learn:search_cmd",
    "embed": "kgraph.cli.learn:embed_cmd",
    "transcript": "kgraph.cli.transcript:transcript",
    "graph": "kgraph.cli.graph:graph",
    "mcp": "kgraph.cli.mcp:mcp_command",
    "viz": "kgraph.cli.viz:viz",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, with one-line error reporting."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Refuse, before anything runs, an argument that is not valid UTF-8: Python hands
        such bytes over as lone surrogates, which no database text or output can hold.
        (Not for ``kgraph hook``: hooks never exit non-zero; they ignore what they cannot use.)"""
        for arg in [] if "hook" in args[:3] else args:
            try:
                arg.encode("utf-8")
            except UnicodeEncodeError:
                shown = ascii(arg if len(arg) <= 60 else arg[:60] + "...")
                raise click.UsageError(f"argument {shown} is not valid UTF-8 text", ctx) from None
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *SUBCOMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except (Exception, KeyboardInterrupt) as exc:
            # One line and an exit code, as the commands that run without Click end
            # (kgraph.cli.entry); the traceback behind KGRAPH_DEBUG=1.
            ctx.exit(failure_exit(exc))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_url",
    metavar="PATH|URL",
    envvar="KGRAPH_DB",
    help="Database file or SQLAlchemy URL (default: <git root>/.claude/execution-state.db).",
)
@click.version_option(__version__, prog_name="kgraph")
@click.pass_context
def cli(ctx: click.Context, db_url: str | None) -> None:
    """kgraph: project memory and a code graph for AI coding agents.

    \b
    Example:
      kgraph workflow create 123 feat/issue-123
      kgraph --db /tmp/k.db workflow list --json
    """
    ctx.obj = {"db_url": db_url}


def main() -> None:
    cli.main(prog_name="kgraph")


if __name__ == "__main__":  # pragma: no cover
    main()
