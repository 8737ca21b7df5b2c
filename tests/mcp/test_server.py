"""Server behaviour around the tools: the warm embedder and a stale installation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from kgraph.api import Project, WarmEmbedder
from kgraph.db import open_database
from kgraph.knowledge import add_item
from kgraph.mcp import ServerOptions
from kgraph.mcp import server as server_module
from tests.api.test_embedder import Gate, NamedHash
from tests.mcp.conftest import Result, session


def test_search_is_lexical_until_the_background_model_is_ready(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    add_item(db, "Connection pools are per process", embedder=NamedHash())
    gate = Gate()
    kg = Project(db, tmp_path, WarmEmbedder("all-MiniLM-L6-v2", loader=gate))

    async def body(client: ClientSession) -> tuple[Any, Any]:
        await client.list_tools()  # the client is talking: the load starts
        loading = Result(await client.call_tool("search", {"query": "connection pools"})).json()
        gate.release.set()
        assert kg.embedder.wait(5)
        ready = Result(await client.call_tool("search", {"query": "connection pools"})).json()
        return loading, ready

    try:
        loading, ready = session(kg, body, ServerOptions(warm=True))
    finally:
        kg.close()
    assert gate.calls == 1
    assert loading["mode"] == "lexical + graph"
    assert loading["note"] == "the embedding model is still loading"
    assert len(loading["hits"]) == 1
    assert ready["mode"] == "hybrid" and "note" not in ready


def test_a_newer_installed_kgraph_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    monkeypatch.setattr(metadata, "version", lambda name: "9.9.9")
    kg = Project(open_database(f"sqlite:///{tmp_path / 'k.db'}"), tmp_path, WarmEmbedder("fake"))

    async def body(client: ClientSession) -> Result:
        return Result(await client.call_tool("find", {"name": "x"}))

    try:
        result = session(kg, body, ServerOptions(max_chars=1_000, warm=False))
    finally:
        kg.close()
    assert "kgraph 9.9.9 is installed but this server runs" in result.texts[-1]
    assert sum(len(t) + 1 for t in result.texts) <= 1_001


def test_tool_definitions_are_the_table(tmp_path: Path) -> None:
    from kgraph.mcp import TOOLS

    definition = server_module.tool_definition(TOOLS[0])
    assert definition.inputSchema == TOOLS[0].schema
