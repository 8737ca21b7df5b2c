"""Fixtures for hook tests: a project repo with its database, no detached workers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgraph.db import Database, open_database
from kgraph.hooks.context import HookOptions
from kgraph.hooks.runner import HookResult, run_hook
from tests.conftest import backend_url


@pytest.fixture(autouse=True)
def _no_spawn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Hooks run in-process must not start workers, nor touch the repo they run from."""
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.delenv("KGRAPH_INTERNAL", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def project_db(
    request: pytest.FixtureRequest, backend: str, tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Database]:
    """The database at the repo's default location (what the hooks resolve); on PostgreSQL
    a fresh project on the test server, named to the hooks by KGRAPH_DB."""
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    url = backend_url(request, backend, tmp_repo / ".claude" / "execution-state.db")
    if backend == "postgresql":
        monkeypatch.setenv("KGRAPH_DB", url)
    database = open_database(url)
    yield database
    database.close()


@pytest.fixture
def hook(tmp_repo: Path) -> Callable[..., HookResult]:
    """``hook(event, **payload)``: run a hook in-process with cwd = the temp repo."""

    def run(event: str, options: HookOptions | None = None, **payload: Any) -> HookResult:
        payload.setdefault("cwd", str(tmp_repo))
        return run_hook(event, json.dumps(payload).encode(), options)

    return run


def context_of(result: HookResult, event_name: str = "SessionStart") -> str:
    """The additionalContext of a hook's stdout, checking the contract shape."""
    data = json.loads(result.stdout)
    assert list(data) == ["hookSpecificOutput"]
    output = data["hookSpecificOutput"]
    assert output["hookEventName"] == event_name
    assert isinstance(output["additionalContext"], str)
    return str(output["additionalContext"])
