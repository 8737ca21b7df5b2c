"""``initialize`` is answered before the SDK, SQLAlchemy or torch is imported, with the
answer the SDK itself would give, and the SDK's own answer is not sent a second time."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import mcp.types as types
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

from kgraph import __version__
from kgraph.api import Project
from kgraph.mcp import ServerOptions, build_server
from kgraph.mcp.handshake import (
    LATEST_PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    answer_initialize,
    initialize_result,
)
from tests.mcp.rawserver import RawServer, isolated_env

HEAVY = ("mcp", "sqlalchemy", "torch", "sentence_transformers", "pydantic")
INIT = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def test_constants_match_the_sdk() -> None:
    assert tuple(SUPPORTED_PROTOCOL_VERSIONS) == PROTOCOL_VERSIONS
    assert LATEST_PROTOCOL_VERSION == types.LATEST_PROTOCOL_VERSION


def test_answer_equals_the_sdks(tmp_path: Path) -> None:
    from tests.api.sample import open_sample

    project: Project = open_sample(tmp_path)[0]
    try:
        init = build_server(project, ServerOptions(warm=False)).create_initialization_options()
    finally:
        project.close()
    for version in ("2025-06-18", "1999-01-01"):
        sdk = types.InitializeResult(
            protocolVersion=version
            if version in SUPPORTED_PROTOCOL_VERSIONS
            else types.LATEST_PROTOCOL_VERSION,
            capabilities=init.capabilities,
            serverInfo=types.Implementation(name=init.server_name, version=init.server_version),
            instructions=init.instructions,
        )
        assert initialize_result(version) == sdk.model_dump(by_alias=True, exclude_none=True)


def test_only_a_well_formed_initialize_is_answered() -> None:
    out = io.BytesIO()
    prelude = answer_initialize(io.BytesIO(json.dumps(INIT).encode() + b"\nrest\n"), out)
    assert prelude.answered_id == 7
    reply = json.loads(out.getvalue())
    assert reply["id"] == 7 and reply["result"]["serverInfo"]["version"] == __version__
    for line in (b"{not json\n", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', b""):
        out = io.BytesIO()
        prelude = answer_initialize(io.BytesIO(line), out)
        assert prelude.answered_id is None and out.getvalue() == b""
    broken = {**INIT, "params": {"protocolVersion": "2025-06-18"}}
    out = io.BytesIO()
    assert answer_initialize(io.BytesIO(json.dumps(broken).encode()), out).answered_id is None


def test_initialize_answered_before_heavy_imports(tmp_path: Path) -> None:
    """What ``kgraph mcp`` has imported when its answer is written (checked in a child)."""
    code = (
        "import io, json, sys\n"
        "from kgraph.cli.mcp import mcp_command\n"
        "from kgraph.mcp.handshake import answer_initialize\n"
        f"answer_initialize(io.BytesIO({json.dumps(INIT).encode()!r}), io.BytesIO())\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert json.loads(done.stdout) == []


def test_server_answers_initialize_once(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "home")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    server = RawServer(tmp_path / "repo", env)
    try:
        replies = server.exchange(json.dumps(INIT), replies=1)
        assert len(replies) == 1 and replies[0]["id"] == 7 and "result" in replies[0]
        initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert server.exchange(initialized, replies=0) == []  # the SDK's answer was dropped
        tools = server.request("tools/list")
        assert "search" in [t["name"] for t in tools["result"]["tools"]]
    finally:
        server.close()
