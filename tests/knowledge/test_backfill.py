"""The vector backfill: batches with progress, re-embedding, near-duplicate merging."""

from __future__ import annotations

from kgraph.db import Database
from kgraph.embeddings import Embedder
from kgraph.knowledge import add_item, get_item
from kgraph.knowledge.backfill import count_missing, embed_missing
from kgraph.knowledge.vectors import has_vectors


def test_backfill_embeds_in_batches_with_progress(db: Database, fake: Embedder) -> None:
    for n in range(5):
        add_item(db, f"fact number {n} about topic {n * 7}")
    assert count_missing(db, fake.model_name) == 5 and not has_vectors(db, fake.model_name)
    calls: list[tuple[int, int]] = []
    report = embed_missing(db, fake, batch_size=2, progress=lambda d, t: calls.append((d, t)))
    assert report.embedded == 5 and report.remaining == 0
    assert calls == [(0, 5), (2, 5), (4, 5), (5, 5)]
    assert has_vectors(db, fake.model_name)
    assert embed_missing(db, fake).embedded == 0  # nothing left to do


def test_reembed_redoes_every_item(db: Database, fake: Embedder) -> None:
    add_item(db, "one", embedder=fake)
    add_item(db, "two", embedder=fake)
    assert embed_missing(db, fake).embedded == 0
    assert embed_missing(db, fake, reembed=True).embedded == 2


def test_backfill_merges_near_duplicates_of_the_same_type(db: Database, fake: Embedder) -> None:
    first = add_item(db, "Always close database sessions with a context manager").entity_id
    second = add_item(db, "always close the database sessions with a context manager").entity_id
    pattern = add_item(
        db, "always close database sessions with a context manager", type="Pattern"
    ).entity_id
    report = embed_missing(db, fake)
    assert report.merged == 1
    kept = get_item(db, first)
    assert kept.seen_count == 2 and kept.active
    assert get_item(db, second).superseded_by == (first,)
    assert get_item(db, pattern).active  # another type is never merged
