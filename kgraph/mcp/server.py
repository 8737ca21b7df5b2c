"""``kgraph mcp``: the stdio MCP server, on the official SDK's low-level ``Server``.

Wiring only — the tools are kgraph.mcp.tools. stdout carries the protocol and nothing
else; logs go to stderr. The server:

- opens the project once, then before every call lets it notice other processes' writes
  and a replaced or upgraded database file (``Project.refresh``);
- starts loading the embedding model in a background thread once the client is talking
  (its first request, or after ``WARM_DELAY_S``), so starting and the first answers are
  not slowed by the ~9 s import; until the model is ready, search is lexical + graph and
  says so;
- runs each tool in a worker thread, one at a time (the event loop keeps reading), and
  caps every result (``--max-chars``, default 8,000 characters);
- checks a call's arguments, sizes first, before any work (kgraph.mcp.args), and answers
  every malformed request with a JSON-RPC error (kgraph.mcp.stdio, kgraph.mcp.jsonrpc);
- notices when a different kgraph version was installed under it, and says to restart.

This module imports the ``mcp`` SDK; nothing else in kgraph does (hooks never pay for it).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

from kgraph import __version__
from kgraph.api import Project
from kgraph.mcp.render import DEFAULT_MAX_CHARS, MIN_MAX_CHARS
from kgraph.mcp.tools import TOOLS, ToolSpec, call

SERVER_NAME = "kgraph"
WARM_DELAY_S = 2.0
VERSION_CHECK_S = 60.0
INSTRUCTIONS = (
    "kgraph is this project's memory and code graph. Use recall or context_for at the start "
    "of a task and before editing unfamiliar files; search + get to look things up; "
    "what_calls / blast_radius before changing a signature; learn to record a cause, fix or "
    "decision worth knowing next time; workflow to checkpoint long work. Results list ids and "
    "one-line summaries; get returns full text."
)

log = logging.getLogger("kgraph.mcp")


@dataclass(frozen=True)
class ServerOptions:
    max_chars: int = DEFAULT_MAX_CHARS
    warm: bool = True  # load the embedding model in the background


class _InstalledVersion:
    """Compares the kgraph installed now with the one running, at most once a minute."""

    def __init__(self) -> None:
        self._checked = 0.0
        self.note: str | None = None

    def check(self) -> str | None:
        now = time.monotonic()
        if now - self._checked < VERSION_CHECK_S:
            return self.note
        self._checked = now
        from importlib import metadata

        try:
            installed = metadata.version("kgraph")
        except metadata.PackageNotFoundError:
            return None
        if installed != __version__:
            self.note = (
                f"kgraph {installed} is installed but this server runs {__version__}: "
                "restart the MCP server (in Claude Code: /mcp, reconnect kgraph)"
            )
        return self.note


def tool_definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description,
        inputSchema=spec.schema,
        annotations=types.ToolAnnotations(
            readOnlyHint=spec.read_only, destructiveHint=False, openWorldHint=False
        ),
    )


def build_server(project: Project, options: ServerOptions | None = None) -> Server[Any, Any]:
    """The MCP server for ``project`` (run it with ``server.run`` on any transport)."""
    options = options or ServerOptions()
    max_chars = max(MIN_MAX_CHARS, options.max_chars)
    server: Server[Any, Any] = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
    lock = threading.Lock()
    installed = _InstalledVersion()
    definitions = [tool_definition(t) for t in TOOLS]

    def warm() -> None:
        if options.warm:
            project.embedder.start()

    if options.warm:
        timer = threading.Timer(WARM_DELAY_S, warm)
        timer.daemon = True
        timer.start()

    def run(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        note = installed.check()
        budget = max_chars - (len(note) + 1 if note else 0)
        with lock:
            text, is_error = call(project, name, arguments, budget)
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
        if note:
            content.append(types.TextContent(type="text", text=note))
        return types.CallToolResult(content=content, isError=is_error)

    @server.list_tools()  # type: ignore[untyped-decorator,no-untyped-call]
    async def list_tools() -> list[types.Tool]:
        warm()
        return definitions

    # The SDK's jsonschema check is off: Args checks the same schema, sizes first, with
    # one-line messages that name the argument (kgraph.mcp.args says why).
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        warm()
        return await anyio.to_thread.run_sync(run, name, arguments)

    return server


async def run_stdio(server: Server[Any, Any]) -> None:
    """Serve over stdin/stdout, malformed requests answered (kgraph.mcp.stdio)."""
    from kgraph.mcp.stdio import screened_stdio

    async with screened_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(
    target: str | Path | None = None,
    *,
    options: ServerOptions | None = None,
    embedder: str | None = None,
) -> None:
    """Serve the project ``target`` (see ``kgraph.open``) over stdio until stdin closes."""
    import kgraph

    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="kgraph mcp: %(levelname)s %(message)s"
    )
    project = kgraph.open(target, embedder=embedder)
    try:
        anyio.run(run_stdio, build_server(project, options))
    finally:
        project.close()
