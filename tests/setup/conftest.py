"""Fixtures for the set-up tests (install, doctor, .mcp.json)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_spawn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Doctor's sample hook runs must not start workers, nor touch the repo they run from."""
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.delenv("KGRAPH_INTERNAL", raising=False)
    monkeypatch.chdir(tmp_path)
