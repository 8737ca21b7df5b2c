"""The MCP server: the public API's queries as a few capped, parameterised tools.

- :mod:`kgraph.mcp.tools` — the tool table and :func:`call` (no SDK import), its
  arguments checked by :mod:`kgraph.mcp.args` (every string and list has a limit);
- :mod:`kgraph.mcp.handshake` — answers ``initialize`` before the SDK is imported;
- :mod:`kgraph.mcp.server` — the stdio server on the official ``mcp`` SDK
  (a dependency); imported only by ``kgraph mcp``. Its transport,
  :mod:`kgraph.mcp.stdio`, answers malformed JSON-RPC (:mod:`kgraph.mcp.jsonrpc`).

The server names load on first use (PEP 562), so importing this package (or the tool
table) never imports the SDK.
"""

from typing import TYPE_CHECKING, Any

from kgraph.mcp.handshake import Prelude, answer_initialize
from kgraph.mcp.render import DEFAULT_MAX_CHARS
from kgraph.mcp.tools import TOOL_NAMES, TOOLS, ToolSpec, call

if TYPE_CHECKING:
    from kgraph.mcp.server import ServerOptions, build_server, serve

_SERVER = frozenset({"ServerOptions", "build_server", "serve"})

__all__ = [
    "DEFAULT_MAX_CHARS",
    "TOOLS",
    "TOOL_NAMES",
    "Prelude",
    "ServerOptions",
    "ToolSpec",
    "answer_initialize",
    "build_server",
    "call",
    "serve",
]


def __getattr__(name: str) -> Any:
    if name in _SERVER:
        from kgraph.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module 'kgraph.mcp' has no attribute {name!r}")
