"""``kgraph mcp`` as a subprocess spoken to byte by byte, as no SDK client would: so a test
can send what is not valid JSON-RPC and see exactly what comes back on stdout."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

TIMEOUT_S = 20.0
PROTOCOL_VERSION = "2025-06-18"


def isolated_env(home: Path) -> dict[str, str]:
    """This process's environment pointed away from anything real (as tests/conftest.py's
    autouse fixture does, which a module-scoped fixture starts too early to see)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KGRAPH_DB", "KGRAPH_DISABLED")}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), KGRAPH_EMBEDDER="fake")
    return env


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


class RawServer:
    """One ``kgraph mcp`` process in ``root``; stderr goes to ``root/stderr.txt``."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.stderr = (root / "stderr.txt").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kgraph.cli.main", "mcp"],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin = self.process.stdin
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(self.process.stdout, self.lines))
        reader.daemon = True
        reader.start()
        self._next_id = 0

    def send(self, line: str | bytes) -> None:
        data = line.encode("utf-8") if isinstance(line, str) else line
        self.stdin.write(data + b"\n")
        self.stdin.flush()

    def receive(self, deadline: float) -> Any:
        """The next message the server writes (parsed), waiting until ``deadline``."""
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError("no message from the server in time") from None
        if line is None:
            raise EOFError(f"the server exited (code {self.process.wait(5)})")
        return json.loads(line)

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and return its reply (notifications in between are skipped)."""
        self._next_id += 1
        request_id = f"req-{self._next_id}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message))
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self.receive(deadline)
            if isinstance(reply, dict) and reply.get("id") == request_id:
                return reply

    def exchange(self, line: str | bytes, replies: int) -> list[Any]:
        """Send ``line``, then a ping. Returns what came back other than notifications and
        the ping's answer, once the ping is answered (the server is up) and ``replies``
        replies have come. A reply the line was not meant to get fails the caller's check."""
        self._next_id += 1
        ping_id = f"ping-{self._next_id}"
        self.send(line)
        self.send(json.dumps({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}))
        deadline = time.monotonic() + TIMEOUT_S
        got: list[Any] = []
        answered = False
        while not answered or len(got) < replies:
            message = self.receive(deadline)
            if isinstance(message, dict) and message.get("id") == ping_id:
                assert message == {"jsonrpc": "2.0", "id": ping_id, "result": {}}
                answered = True
            elif isinstance(message, list) or "method" not in message:
                got.append(message)
        return got

    def initialize(self) -> Any:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return reply

    def close(self) -> int:
        self.stdin.close()
        try:
            code = self.process.wait(TIMEOUT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.stderr.close()
        return code
