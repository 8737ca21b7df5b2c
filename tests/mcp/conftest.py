"""An MCP client session on the SDK's in-memory transport, against a sample project."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session

from kgraph.api import Project
from kgraph.mcp import ServerOptions, build_server
from tests.api.sample import open_sample

T = TypeVar("T")


@pytest.fixture
def sample(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> Iterator[tuple[Project, dict[str, str]]]:
    url = request.getfixturevalue("pg_server").fresh_url() if backend == "postgresql" else None
    kg, ids = open_sample(tmp_path, url=url)
    yield kg, ids
    kg.close()


def session(
    project: Project,
    body: Callable[[ClientSession], Awaitable[T]],
    options: ServerOptions | None = None,
) -> T:
    """Run ``body(client)`` against a fresh server for ``project`` (in memory)."""

    async def main() -> T:
        server = build_server(project, options or ServerOptions(warm=False))
        async with create_connected_server_and_client_session(server) as client:
            return await body(client)

    return anyio.run(main)


class Result:
    """A tool result: its text, whether it is an error, and the JSON when it is JSON."""

    def __init__(self, raw: Any) -> None:
        self.is_error = bool(raw.isError)
        self.texts = [c.text for c in raw.content]
        self.text = self.texts[0] if self.texts else ""

    def json(self) -> Any:
        return json.loads(self.text)


def call(project: Project, name: str, arguments: dict[str, Any], max_chars: int = 8_000) -> Result:
    async def body(client: ClientSession) -> Result:
        return Result(await client.call_tool(name, arguments))

    return session(project, body, ServerOptions(max_chars=max_chars, warm=False))
