"""The warm embedder: background loading, and search saying what it used meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kgraph.api import Project, WarmEmbedder
from kgraph.db import open_database
from kgraph.embeddings import MINILM_MODEL_NAME, get_embedder
from kgraph.knowledge import add_item


class NamedHash:
    """The fake embedder under the real model's name, so no model is ever loaded."""

    model_name = MINILM_MODEL_NAME
    dim = 384

    def __init__(self) -> None:
        self._inner = get_embedder("fake")

    def embed(self, texts: Sequence[str]) -> Any:
        return self._inner.embed(texts)


class Gate:
    """A loader that blocks until released (the ~9 s model import, on demand)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, name: str | None) -> Any:
        self.calls += 1
        assert self.release.wait(10)
        return NamedHash()


def test_background_load_then_ready() -> None:
    gate = Gate()
    warm = WarmEmbedder("all-MiniLM-L6-v2", loader=gate)
    assert warm.state == "idle" and not warm.cheap
    warm.start()
    warm.start()  # idempotent
    assert warm.state == "loading"
    assert warm.get(wait=False) is None
    gate.release.set()
    assert warm.wait(5)
    assert warm.state == "ready" and warm.get(wait=False) is not None
    assert gate.calls == 1


def test_a_failed_load_is_reported_not_raised() -> None:
    def broken(name: str | None) -> Any:
        raise OSError("model files missing")

    warm = WarmEmbedder("all-MiniLM-L6-v2", loader=broken)
    warm.start()
    assert warm.wait(5)
    assert warm.state == "failed" and warm.get(wait=True) is None
    assert warm.error == "OSError: model files missing"


def test_off_and_instances() -> None:
    assert WarmEmbedder(False).get(wait=True) is None
    instance = get_embedder("fake")
    assert WarmEmbedder(instance).get(wait=False) is instance
    assert WarmEmbedder("fake").get(wait=False) is not None  # cheap: loaded at once


def test_search_is_lexical_and_says_so_until_the_model_is_ready(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    add_item(db, "Connection pools are per process", embedder=NamedHash())
    gate = Gate()
    kg = Project(db, tmp_path, WarmEmbedder("all-MiniLM-L6-v2", loader=gate))
    try:
        kg.embedder.start()
        loading = kg.search("connection pools")
        assert loading.mode == "lexical + graph"
        assert loading.note == "the embedding model is still loading"
        assert len(loading) == 1
        gate.release.set()
        assert kg.embedder.wait(5)
        ready = kg.search("connection pools")
        assert ready.mode == "hybrid" and ready.note is None
        assert ready.hits[0].cosine is not None
    finally:
        kg.close()


def test_without_stored_vectors_the_model_is_not_loaded(tmp_path: Path) -> None:
    gate = Gate()
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    kg = Project(db, tmp_path, WarmEmbedder("all-MiniLM-L6-v2", loader=gate))
    try:
        kg.learn("Connection pools are per process")
        result = kg.search("connection pools")
        assert result.mode == "lexical + graph"
        assert result.note is not None and "kgraph embed" in result.note
        assert gate.calls == 0
    finally:
        kg.close()


@pytest.mark.parametrize("semantic", [False])
def test_semantic_false_never_loads(tmp_path: Path, semantic: bool) -> None:
    gate = Gate()
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    add_item(db, "Connection pools are per process", embedder=NamedHash())
    with Project(db, tmp_path, WarmEmbedder("all-MiniLM-L6-v2", loader=gate)) as kg:
        assert kg.search("pools", semantic=semantic).mode == "lexical + graph"
    assert gate.calls == 0
