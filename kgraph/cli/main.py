"""The root ``kgraph`` group.

Subcommand modules are imported only when their command runs, so ``kgraph hook ...`` never
pays for what ``kgraph graph ...`` imports. Errors a person can cause (KgraphError) become a
one-line ``Error: ...`` on stderr with the error's exit code; an unexpected exception is one
line too, with the traceback behind ``KGRAPH_DEBUG=1``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from kgraph import __version__
from kgraph.errors import KgraphError

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
            result = super().invoke(ctx)
        except KgraphError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("Aborted.", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader went away (`kgraph ... | head`): stop quietly, as Unix tools do.
            # Python would report the failed flush of stdout at exit: point it at devnull.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except Exception as exc:
            if os.environ.get("KGRAPH_DEBUG"):
                raise
            click.echo(
                f"Error: internal error: {type(exc).__name__}: {exc} "
                "(run with KGRAPH_DEBUG=1 for the traceback)",
                err=True,
            )
            ctx.exit(1)
        return result


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
