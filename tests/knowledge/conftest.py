"""Fixtures for the knowledge graph tests."""

from __future__ import annotations

import pytest

from kgraph.embeddings import Embedder, get_embedder


@pytest.fixture
def fake() -> Embedder:
    """The deterministic hashing embedder (no torch)."""
    return get_embedder("fake")
