"""``kgraph mcp``: serve this project to an MCP client (Claude Code) over stdio."""

from __future__ import annotations

import click

from kgraph.errors import KgraphError


@click.command("mcp")
@click.option(
    "--max-chars",
    type=click.IntRange(500, 1_000_000),
    default=8_000,
    show_default=True,
    envvar="KGRAPH_MCP_MAX_CHARS",
    help="Cap on every tool result, in characters (env KGRAPH_MCP_MAX_CHARS).",
)
@click.option(
    "--no-warm",
    is_flag=True,
    help="Do not load the embedding model in the background (search stays lexical + graph "
    "unless vectors of the model are stored, then the first search loads it).",
)
@click.pass_context
def mcp_command(ctx: click.Context, max_chars: int, no_warm: bool) -> None:
    """Run the MCP server on stdin/stdout (stdout is the protocol; logs go to stderr).

    Claude Code starts it from .mcp.json (written by `kgraph install`). Tools: search, get,
    recall, context_for, what_calls, blast_radius, find, exports, workflow, learn.

    \b
    Example:
      kgraph mcp
      claude mcp add kgraph -- kgraph mcp
    """
    import sys

    from kgraph.mcp import answer_initialize
    from kgraph.setup import MCP_MISSING

    # Before the SDK and SQLAlchemy are imported: the client waits for this answer.
    prelude = answer_initialize(sys.stdin.buffer, sys.stdout.buffer)
    try:
        from kgraph.mcp import ServerOptions, serve
    except ImportError as exc:  # a broken install: the SDK is a dependency
        raise KgraphError(
            f"the MCP server cannot start ({exc.name} is missing): {MCP_MISSING}"
        ) from exc
    obj = ctx.find_root().obj
    db_url = obj.get("db_url") if isinstance(obj, dict) else None
    serve(db_url, options=ServerOptions(max_chars=max_chars, warm=not no_warm), prelude=prelude)
