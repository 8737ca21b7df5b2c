"""The doctor's MCP check: does the registered server start and answer as Claude Code needs?

It starts the command ``.mcp.json`` registers (else this kgraph's ``kgraph mcp``) the way
Claude Code does, and speaks the protocol by hand — newline-delimited JSON-RPC on stdio:
``initialize``, the ``initialized`` notification, then ``tools/list``. No SDK is needed on
this side, so the check also tells a missing SDK apart from a broken server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from kgraph.setup.doctor import Check
from kgraph.setup.mcpjson import MCP_MISSING, registered_command, sdk_available

PROTOCOL_VERSION = "2025-03-26"
START_BUDGET_S = 2.0  # target: start to first answer
TIMEOUT_S = 30.0
EXPECTED_TOOLS = ("search", "recall", "what_calls")


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _await_response(lines: queue.Queue[str | None], request_id: int, deadline: float) -> Any:
    """The JSON-RPC response to ``request_id`` (skipping notifications), or raise."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no answer to request {request_id} in {TIMEOUT_S:.0f} s")
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            continue
        if line is None:
            raise EOFError("the server closed its output")
        try:
            message = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"stdout carried something else than JSON-RPC: {line[:80]!r}") from exc
        if isinstance(message, dict) and message.get("id") == request_id:
            if "error" in message:
                raise RuntimeError(f"error answer: {message['error']}")
            return message.get("result")


def probe_server(
    command: list[str], root: Path, db_url: str | None = None
) -> tuple[float, list[str]]:
    """(seconds from start to the initialize answer, tool names) of the server ``command``."""
    env = dict(os.environ)
    if db_url:
        env["KGRAPH_DB"] = db_url
    started = time.monotonic()
    proc = subprocess.Popen(
        command,
        cwd=str(root),
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    deadline = started + TIMEOUT_S

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "kgraph-doctor", "version": "1"},
                },
            }
        )
        _await_response(lines, 1, deadline)
        elapsed = time.monotonic() - started
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        result = _await_response(lines, 2, deadline)
        tools = [t.get("name", "?") for t in (result or {}).get("tools", [])]
        return elapsed, tools
    finally:
        try:
            proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


def check_mcp_server(command: list[str], root: Path, db_url: str | None = None) -> Check:
    """Check the MCP server registered for ``root`` (``command``: this kgraph, the fallback)."""
    name = "mcp server"
    registered = registered_command(root)
    if not sdk_available():
        return Check(name, "warn", f"not available: {MCP_MISSING}, then kgraph install")
    target = registered or [*command, "mcp"]
    try:
        elapsed, tools = probe_server([*target, "--no-warm"], root, db_url)
    except (OSError, TimeoutError, EOFError, ValueError, RuntimeError) as exc:
        return Check(name, "fail", f"{' '.join(target)}: {exc}")
    missing = [t for t in EXPECTED_TOOLS if t not in tools]
    if missing:
        return Check(name, "fail", f"tools/list lacks {', '.join(missing)}")
    detail = (
        f"answered initialize in {elapsed:.2f} s (target {START_BUDGET_S} s), {len(tools)} tools"
    )
    if registered is None:
        return Check(name, "warn", f"{detail}; not in .mcp.json (run `kgraph install`)")
    return Check(name, "ok" if elapsed <= START_BUDGET_S else "warn", detail)
