"""Stored vectors: model separation, nearest neighbours, the in-process cache."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from kgraph.db import Database
from kgraph.embeddings import Embedder
from kgraph.embeddings.fake import HashEmbedder
from kgraph.knowledge import add_item, get_item, set_hidden
from kgraph.knowledge.backfill import count_missing, embed_missing
from kgraph.knowledge.search import search
from kgraph.knowledge.vectors import nearest


class OtherModel(HashEmbedder):
    """A second 'model': same features, different hash seed and name, 256 dimensions."""

    def __init__(self) -> None:
        super().__init__(dim=256, model_name="other-model-256")

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return super().embed([t[::-1] for t in texts])


def test_vectors_record_model_and_models_are_never_compared(db: Database, fake: Embedder) -> None:
    item = add_item(db, "structured logging in handlers", embedder=fake).entity_id
    other = OtherModel()
    assert get_item(db, item).embedding_model == "kgraph-hash-384"
    # Searching with another model finds no vectors of its own: lexical only, no cosine.
    hits = search(db, "structured logging", embedder=other)
    assert hits[0].item.id == item and hits[0].cosine is None
    assert nearest(db, other.embed(["structured logging"])[0], other.model_name) == []
    # Switching models re-embeds everything under the new name.
    report = embed_missing(db, other)
    assert report.embedded == 1 and report.model == "other-model-256"
    assert get_item(db, item).embedding_model == "other-model-256"
    assert search(db, "structured logging", embedder=other)[0].cosine is not None
    assert count_missing(db, fake.model_name) == 1


def test_cache_sees_writes_between_queries(db: Database, fake: Embedder) -> None:
    add_item(db, "cache alpha", embedder=fake)
    assert len(search(db, "cache", embedder=fake)) == 1
    beta = add_item(db, "cache beta", embedder=fake).entity_id
    assert len(search(db, "cache", embedder=fake)) == 2
    set_hidden(db, beta, True)
    assert len(search(db, "cache", embedder=fake)) == 1


def test_nearest_orders_by_cosine(db: Database, fake: Embedder) -> None:
    a = add_item(db, "retry locked sqlite writes", embedder=fake).entity_id
    add_item(db, "render markdown tables", embedder=fake)
    hits = nearest(db, fake.embed(["retry sqlite writes"])[0], fake.model_name, limit=2)
    assert hits[0][0] == a and hits[0][1] > hits[1][1]
    assert hits[0][1] == pytest.approx(
        float(
            fake.embed(["retry locked sqlite writes"])[0] @ fake.embed(["retry sqlite writes"])[0]
        ),
        rel=1e-5,
    )


def test_cache_survives_writes_to_other_rows_and_not_vector_changes(
    db: Database, fake: Embedder
) -> None:
    from kgraph.knowledge.vectors import load_matrix

    def matrix() -> object:
        return db.read(lambda conn: load_matrix(conn, fake.model_name, fake.dim)[1])

    first = add_item(db, "tokens expire after an hour", embedder=fake).entity_id
    cached = matrix()
    add_item(db, "a learning without a vector")  # rows changed, the vectors did not
    assert matrix() is cached
    second = add_item(db, "sessions are pinned to a worker", embedder=fake).entity_id
    grown = matrix()
    assert grown is not cached and grown.shape[0] == 2  # type: ignore[attr-defined]
    set_hidden(db, second, True)
    assert matrix().shape[0] == 1  # type: ignore[attr-defined]
    assert nearest(db, fake.embed(["tokens expire"])[0], fake.model_name)[0][0] == first


def test_cache_follows_another_process_through_the_vector_epoch(
    db: Database, fake: Embedder
) -> None:
    """The MCP server's case: another connection (a hook, the capture worker) commits.
    Writes that cannot change the matrix keep it; every kind that can replaces it."""
    from sqlalchemy import text

    from kgraph.db import open_database
    from kgraph.knowledge import supersede, unsupersede
    from kgraph.knowledge.vectors import load_matrix

    def loaded() -> tuple[list[str], object]:
        return db.read(lambda conn: load_matrix(conn, fake.model_name, fake.dim))

    def epoch() -> int:
        return int(db.read(lambda c: c.execute(text("SELECT epoch FROM vector_epoch")).scalar()))

    first = add_item(db, "tokens expire after an hour", embedder=fake).entity_id
    second = add_item(db, "sessions are pinned to a worker", embedder=fake).entity_id
    ids, cached = loaded()
    assert sorted(ids) == sorted([first, second])
    other = open_database(db.url)  # the same database (file, or project on the server)
    try:
        before = epoch()
        add_item(other, "a learning without a vector")
        other.write(
            lambda c: c.execute(
                text(
                    "INSERT INTO graph_queries (query_type, result_count, duration_ms, "
                    "created_at) VALUES ('what_calls', 1, 1.0, '2026-11-25 00:00:00')"
                )
            )
        )
        assert epoch() == before
        assert loaded()[1] is cached  # the other process wrote, the vectors did not move
        supersede(other, second, first)
        assert loaded()[0] == [first]
        unsupersede(other, second)
        assert sorted(loaded()[0]) == sorted([first, second])
        set_hidden(other, first, True)
        assert loaded()[0] == [second]
        set_hidden(other, first, False)
        _, kept = loaded()
        other.write(
            lambda c: c.execute(
                text("UPDATE entities SET embedding = :v WHERE id = :id"),
                {"v": np.zeros(fake.dim, dtype=np.float32).tobytes(), "id": second},
            )
        )
        ids, changed = loaded()
        assert changed is not kept
        assert not np.asarray(changed)[ids.index(second)].any()  # the re-embedded row
        other.write(
            lambda c: c.execute(text("DELETE FROM entities WHERE id = :id"), {"id": second})
        )
        assert loaded()[0] == [first]
    finally:
        other.close()
