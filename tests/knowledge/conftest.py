"""Fixtures for the knowledge graph tests."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.embeddings import Embedder, get_embedder
from kgraph.knowledge import add_item


@pytest.fixture
def fake() -> Embedder:
    """The deterministic hashing embedder (no torch)."""
    return get_embedder("fake")


@pytest.fixture
def seeded(db: Database) -> dict[str, str]:
    """Five items: about a file, an area, another file, an issue, and docs."""
    return {
        "handler": add_item(
            db, "Log with rd-logger in handlers", files=["src/api/handler.py"], confidence=0.9
        ).entity_id,
        "pattern": add_item(
            db, "Validate input with pydantic", type="Pattern", code_area="API"
        ).entity_id,
        "other_file": add_item(
            db, "Routes are registered in app.py", files=["src/api/routes.py"]
        ).entity_id,
        "issue": add_item(
            db, "Issue 12 needs a migration", issue_number=12, files=["alembic/versions/0002.py"]
        ).entity_id,
        "unrelated": add_item(db, "Docs are built with mkdocs", files=["docs/index.md"]).entity_id,
    }
