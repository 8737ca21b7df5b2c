"""The packaged all-MiniLM-L6-v2 model, end to end (slow: run with -m real_model)."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.embeddings import get_embedder
from kgraph.knowledge import add_item
from kgraph.knowledge.backfill import embed_missing
from kgraph.knowledge.search import search


@pytest.mark.real_model
def test_a_paraphrase_ranks_above_an_unrelated_item(db: Database) -> None:
    embedder = get_embedder("all-MiniLM-L6-v2")
    target = add_item(
        db, "Use structured logging via rd-logger; print() output is dropped in prod"
    ).entity_id
    add_item(db, "The invoice PDF is rendered with a headless browser")
    add_item(db, "Database migrations run inside one transaction")
    report = embed_missing(db, embedder)
    assert report.embedded == 3 and report.model == "sentence-transformers/all-MiniLM-L6-v2"
    # No word of the query occurs in the target: only meaning connects them.
    hits = search(db, "where should diagnostic messages go in production?", embedder=embedder)
    assert hits and hits[0].item.id == target
    assert hits[0].lexical_rank is None and hits[0].cosine is not None
    assert (
        search(db, "where should diagnostic messages go in production?") == []
    )  # lexical alone finds nothing
