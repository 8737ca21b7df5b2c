"""The real thing: a stdio client starts ``kgraph mcp`` as a subprocess, as Claude Code does."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from kgraph.mcp import TOOL_NAMES
from tests.api.sample import open_sample


def test_a_stdio_client_initialises_lists_tools_and_calls_them(tmp_path: Path) -> None:
    kg, ids = open_sample(tmp_path)
    root = kg.root
    kg.close()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kgraph.cli.main", "mcp", "--max-chars", "4000"],
        cwd=str(root),
        env={**os.environ, "KGRAPH_EMBEDDER": "fake"},
    )

    async def main() -> dict[str, Any]:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as client,
        ):
            init = await client.initialize()
            tools = await client.list_tools()
            search = await client.call_tool("search", {"query": "engine deadlocks"})
            callers = await client.call_tool("what_calls", {"name": "Repo.save"})
            bad = await client.call_tool("what_calls", {"name": "nothing_here"})
            return {
                "server": init.serverInfo.name,
                "tools": [t.name for t in tools.tools],
                "search": json.loads(search.content[0].text),
                "callers": json.loads(callers.content[0].text),
                "bad": (bad.isError, bad.content[0].text),
            }

    got = anyio.run(main)
    assert got["server"] == "kgraph"
    assert tuple(got["tools"]) == TOOL_NAMES
    assert got["search"]["mode"] == "hybrid"
    assert got["search"]["hits"][0]["id"] == ids["open_store"]
    assert [c["caller"] for c in got["callers"]["callers"]] == ["main", "test_save"]
    assert got["bad"][0] is True and "nothing_here" in got["bad"][1]
