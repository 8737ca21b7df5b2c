"""Answer the client's ``initialize`` before the MCP SDK (or SQLAlchemy) is imported.

Importing the ``mcp`` SDK costs ~0.45 s on the reference machine (its package imports the
client, httpx and FastMCP), twice ``import sqlalchemy``; opening the project adds
SQLAlchemy. Claude Code waits for the ``initialize`` answer before it goes on, so ``kgraph
mcp`` reads the first line itself, answers a well-formed ``initialize`` from the constants
here, and only then imports the SDK and opens the project. The line is still handed to
the SDK's session (its state machine and the client's parameters stay the SDK's), and
the transport drops the SDK's own answer to it (kgraph.mcp.stdio), so the client sees one
answer. tests/mcp/test_handshake.py checks that this answer equals the SDK's.

Anything else as the first line (malformed JSON, another method, params the SDK might
refuse) is not answered here: it goes to the SDK as before.

This module imports neither the SDK nor pydantic; keep it that way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

from kgraph import __version__

SERVER_NAME = "kgraph"
INSTRUCTIONS = (
    "kgraph is this project's memory and code graph. Use recall or context_for at the start "
    "of a task and before editing unfamiliar files; search + get to look things up; "
    "what_calls / blast_radius before changing a signature; learn to record a cause, fix or "
    "decision worth knowing next time; workflow to checkpoint long work. Results list ids and "
    "one-line summaries; get returns full text."
)
# The SDK's SUPPORTED_PROTOCOL_VERSIONS and LATEST_PROTOCOL_VERSION (a test compares).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = "2025-11-25"
# What the SDK's Server announces for a server with tools only.
CAPABILITIES: dict[str, Any] = {"experimental": {}, "tools": {"listChanged": False}}


@dataclass(frozen=True)
class Prelude:
    """What was read before the SDK started: the lines (for the SDK's session, in order)
    and the id of the ``initialize`` already answered (None: nothing answered)."""

    lines: tuple[str, ...] = ()
    answered_id: str | int | None = None


def initialize_result(requested_version: str) -> dict[str, Any]:
    """The ``initialize`` result the SDK would send (JSON, by alias, no None fields)."""
    version = requested_version if requested_version in PROTOCOL_VERSIONS else None
    return {
        "protocolVersion": version or LATEST_PROTOCOL_VERSION,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def _initialize_id(message: Any) -> str | int | None:
    """The id of a well-formed ``initialize`` request (what the SDK would accept), else None."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    request_id = message.get("id")
    if message.get("method") != "initialize" or isinstance(request_id, bool):
        return None
    if not isinstance(request_id, str | int):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return None
    info = params.get("clientInfo")
    if not isinstance(params.get("capabilities"), dict) or not isinstance(info, dict):
        return None
    if not (isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        return None
    return request_id


def answer_initialize(stdin: IO[bytes], stdout: IO[bytes]) -> Prelude:
    """Read the first line; answer it on ``stdout`` when it is a well-formed ``initialize``.

    ``stdin`` must be the binary stream the transport reads later (``sys.stdin.buffer``):
    the rest of the input stays in its buffer."""
    raw = stdin.readline()
    if not raw:
        return Prelude()
    line = raw.decode("utf-8", errors="replace")
    try:
        message = json.loads(line)
    except ValueError:
        return Prelude((line,))
    request_id = _initialize_id(message)
    if request_id is None:
        return Prelude((line,))
    result = initialize_result(message["params"]["protocolVersion"])
    reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
    stdout.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
    stdout.flush()
    return Prelude((line,), request_id)
