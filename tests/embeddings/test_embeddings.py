"""The embedder protocol, the fake hashing embedder, and vector packing."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from kgraph.embeddings import (
    Embedder,
    get_embedder,
    is_cheap,
    model_name_for,
    pack,
    unpack,
)
from kgraph.errors import InvalidValueError


def test_fake_embedder_is_selected_by_environment() -> None:
    embedder = get_embedder()  # the autouse fixture sets KGRAPH_EMBEDDER=fake
    assert isinstance(embedder, Embedder)
    assert embedder.model_name == "kgraph-hash-384"
    assert embedder.dim == 384
    assert is_cheap()


def test_fake_vectors_are_deterministic_normalised_float32() -> None:
    texts = ["use structured logging", "database migrations run in a transaction", ""]
    first = get_embedder("fake").embed(texts)
    second = get_embedder("fake").embed(texts)
    assert first.dtype == np.float32 and first.shape == (3, 384)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first[:2], axis=1), 1.0, rtol=1e-5)
    assert not first[2].any()  # no words: the zero vector, not NaN


def test_fake_vectors_rank_shared_words_above_unrelated_text() -> None:
    e = get_embedder("fake")
    query, near, far = e.embed(
        ["logging in production", "structured logging for production", "pagination of api results"]
    )
    assert float(query @ near) > float(query @ far)


def test_fake_vectors_are_stable_across_processes() -> None:
    code = (
        "from kgraph.embeddings import get_embedder; "
        "print(get_embedder('fake').embed(['stable text'])[0][:8].tolist())"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1


def test_pack_unpack_round_trip() -> None:
    vector = get_embedder("fake").embed(["round trip"])[0]
    blob = pack(vector)
    assert len(blob) == 384 * 4
    np.testing.assert_array_equal(unpack(blob, 384), vector)


def test_unpack_rejects_a_blob_of_the_wrong_size() -> None:
    with pytest.raises(InvalidValueError, match="expected 1536"):
        unpack(b"\x00" * 10, 384)


def test_model_names_are_known_without_loading() -> None:
    assert model_name_for("fake") == "kgraph-hash-384"
    assert model_name_for("all-MiniLM-L6-v2") == "sentence-transformers/all-MiniLM-L6-v2"
    assert not is_cheap("all-MiniLM-L6-v2")
    with pytest.raises(InvalidValueError, match="unknown embedder"):
        get_embedder("word2vec")


def test_importing_the_package_loads_neither_numpy_nor_torch() -> None:
    code = (
        "import sys, kgraph.embeddings, kgraph.knowledge, kgraph.cli.learn, "
        "kgraph.cli.knowledge; "
        "print(','.join(m for m in ('numpy', 'torch', 'sentence_transformers', 'networkx', "
        "'detect_secrets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.real_model
def test_real_model_embeds_offline_with_its_dimension() -> None:
    embedder = get_embedder("all-MiniLM-L6-v2")
    vectors = embedder.embed(["hello world", "greetings, planet"])
    assert embedder.model_name == "sentence-transformers/all-MiniLM-L6-v2"
    assert vectors.shape == (2, embedder.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-4)


class _ThreadsSeen:
    """Stands in for a SentenceTransformer: records torch's thread count at each encode."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def encode(self, texts: list[str], **_: object) -> list[list[float]]:
        import torch

        self.threads.append(torch.get_num_threads())
        return [[1.0, 0.0] for _ in texts]


def test_a_query_is_encoded_on_one_thread_and_a_batch_on_all() -> None:
    torch = pytest.importorskip("torch")
    from kgraph.embeddings.sentence import SINGLE_THREAD_TEXTS, SentenceTransformerEmbedder

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        model = _ThreadsSeen()
        embedder = SentenceTransformerEmbedder(model, "m", 2)
        embedder.embed(["where do retries live?"])
        embedder.embed([f"text {i}" for i in range(SINGLE_THREAD_TEXTS + 1)])
        assert model.threads == [1, 2]
        assert torch.get_num_threads() == 2  # restored after the query
    finally:
        torch.set_num_threads(before)
