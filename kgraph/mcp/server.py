"""``kgraph mcp``: the stdio MCP server, on the official SDK's low-level ``Server``.

Wiring only — the tools are kgraph.mcp.tools. stdout carries the protocol and nothing
else; logs go to stderr. The server:

- opens the project once, then before every call lets it notice other processes' writes
  and a replaced or upgraded database file (``Project.refresh``);
- answers ``initialize`` before this module is even imported (kgraph.mcp.handshake);
- starts the embedding model, in a child process, on the first call of a tool that
  matches by meaning, and ends it after ``[mcp] model_idle_s`` without use
  (kgraph.mcp.model); until the model is ready, search is lexical + graph and says so;
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
from kgraph.api import Project, WarmEmbedder
from kgraph.embeddings import load_out_of_process
from kgraph.mcp.handshake import INSTRUCTIONS, SERVER_NAME, Prelude
from kgraph.mcp.model import DEFAULT_IDLE_S, SEMANTIC_TOOLS, model_idle_s, release_idle_model
from kgraph.mcp.render import DEFAULT_MAX_CHARS, MIN_MAX_CHARS
from kgraph.mcp.tools import TOOLS, ToolSpec, call

VERSION_CHECK_S = 60.0

log = logging.getLogger("kgraph.mcp")


@dataclass(frozen=True)
class ServerOptions:
    max_chars: int = DEFAULT_MAX_CHARS
    warm: bool = True  # load the embedding model in the background on a semantic call
    model_idle_s: float | None = DEFAULT_IDLE_S  # None: keep the model once loaded


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

    def warm(name: str) -> None:
        if options.warm and name in SEMANTIC_TOOLS:
            project.embedder.start()

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
        return definitions

    # The SDK's jsonschema check is off: Args checks the same schema, sizes first, with
    # one-line messages that name the argument (kgraph.mcp.args says why).
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        warm(name)
        return await anyio.to_thread.run_sync(run, name, arguments)

    return server


async def run_stdio(
    server: Server[Any, Any], project: Project | None = None, prelude: Prelude | None = None
) -> None:
    """Serve over stdin/stdout, malformed requests answered (kgraph.mcp.stdio); with
    ``project``, its idle model is dropped meanwhile (kgraph.mcp.model)."""
    from kgraph.mcp.stdio import screened_stdio

    async with anyio.create_task_group() as tg:
        if project is not None:
            tg.start_soon(release_idle_model, project.embedder)
        async with screened_stdio(prelude=prelude) as (read_stream, write_stream):
            options = server.create_initialization_options()
            await server.run(read_stream, write_stream, options)
        tg.cancel_scope.cancel()


def serve(
    target: str | Path | None = None,
    *,
    options: ServerOptions | None = None,
    embedder: str | None = None,
    prelude: Prelude | None = None,
) -> None:
    """Serve the project ``target`` (see ``kgraph.open``) over stdio until stdin closes.

    ``prelude``: what kgraph.mcp.handshake read and answered before this was imported.
    The model is loaded out of process and dropped after ``[mcp] model_idle_s``
    (``options.model_idle_s`` when the project sets none)."""
    import kgraph

    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="kgraph mcp: %(levelname)s %(message)s"
    )
    options = options or ServerOptions()
    project = kgraph.open(target, embedder=embedder)
    idle_s = model_idle_s(project.root, options.model_idle_s)
    # The same model, loaded in a child process and dropped when idle.
    project.embedder = WarmEmbedder(embedder, loader=load_out_of_process, idle_s=idle_s)
    try:
        anyio.run(run_stdio, build_server(project, options), project, prelude)
    finally:
        project.embedder.release_idle(float("inf"))
        project.close()
