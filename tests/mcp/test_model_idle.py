"""The MCP server's model lifecycle without the real model: the idle drop (driven by an
injected clock, no sleeping), the out-of-process embedder (a child running the hashing
embedder) and the ``[mcp] model_idle_s`` setting."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgraph.api import WarmEmbedder
from kgraph.embeddings import Embedder, ProcessEmbedder, get_embedder
from kgraph.mcp.model import DEFAULT_IDLE_S, IDLE_BOUNDS, check_interval, model_idle_s


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Closing:
    """The hashing embedder, counting how often it was closed."""

    def __init__(self) -> None:
        self.inner = get_embedder("fake")
        self.model_name, self.dim = self.inner.model_name, self.inner.dim
        self.closed = 0

    def embed(self, texts: list[str]) -> object:
        return self.inner.embed(texts)

    def close(self) -> None:
        self.closed += 1


def warm_with(clock: Clock, made: list[Closing], idle_s: float | None = 10.0) -> WarmEmbedder:
    def loader(name: str | None) -> Embedder:
        made.append(Closing())
        return made[-1]  # type: ignore[return-value]

    return WarmEmbedder("fake", loader=loader, idle_s=idle_s, clock=clock)


def test_model_dropped_after_idle_time_and_loaded_again() -> None:
    clock, made = Clock(), []
    warm = warm_with(clock, made)
    assert warm.get(wait=True) is made[0]
    clock.now += 9.9
    assert not warm.release_idle()
    assert warm.state == "ready"
    clock.now += 0.2
    assert warm.release_idle()
    assert (warm.state, made[0].closed) == ("idle", 1)
    assert warm.get(wait=True) is made[1]  # the next use loads a new one
    assert len(made) == 2


def test_use_postpones_the_drop() -> None:
    clock, made = Clock(), []
    warm = warm_with(clock, made)
    warm.get(wait=True)
    for _ in range(5):
        clock.now += 8
        warm.get(wait=False)
        assert not warm.release_idle()
    clock.now += 10
    assert warm.release_idle(clock.now)


def test_no_idle_time_or_given_instance_is_kept() -> None:
    clock, made = Clock(), []
    forever = warm_with(clock, made, idle_s=None)
    forever.get(wait=True)
    assert not forever.release_idle(float("inf"))
    given = WarmEmbedder(get_embedder("fake"), idle_s=1.0, clock=clock)
    assert not given.release_idle(float("inf"))
    assert given.state == "ready"


def test_idle_model_not_loaded_is_not_released() -> None:
    clock, made = Clock(), []
    warm = warm_with(clock, made)
    assert not warm.release_idle(float("inf"))
    assert (warm.state, made) == ("idle", [])


def test_process_embedder_matches_in_process_and_restarts() -> None:
    child = ProcessEmbedder("fake")
    try:
        local = get_embedder("fake")
        assert (child.model_name, child.dim) == (local.model_name, local.dim)
        texts = ["stale vectors after a write", "sqlite WAL"]
        np.testing.assert_array_equal(child.embed(texts), local.embed(texts))
        assert child.embed([]).shape == (0, local.dim)
        first = child.pid
        child.close()
        assert child.pid is None
        np.testing.assert_array_equal(child.embed(texts[:1]), local.embed(texts[:1]))
        assert child.pid not in (None, first)
    finally:
        child.close()


def test_model_idle_setting(tmp_path: Path) -> None:
    assert model_idle_s(tmp_path) == DEFAULT_IDLE_S
    config = tmp_path / ".claude" / "kgraph.toml"
    config.parent.mkdir()
    for text, expected in [
        ("model_idle_s = 42", 42.0),
        ("model_idle_s = 0", IDLE_BOUNDS[0]),
        ('model_idle_s = "soon"', DEFAULT_IDLE_S),
        ("model_idle_s = true", DEFAULT_IDLE_S),
    ]:
        config.write_text(f"[mcp]\n{text}\n")
        assert model_idle_s(tmp_path) == expected, text
    config.write_text("[mcp\n")
    assert model_idle_s(tmp_path) == DEFAULT_IDLE_S


@pytest.mark.parametrize(("idle", "interval"), [(1.0, 0.25), (40.0, 10.0), (300.0, 30.0)])
def test_check_interval(idle: float, interval: float) -> None:
    assert check_interval(idle) == interval
