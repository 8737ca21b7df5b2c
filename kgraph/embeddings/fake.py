"""A deterministic hashing embedder: no model, no torch, microseconds per text.

Features are lower-cased word tokens (weight 1) and the character trigrams of each word
(weight 0.5), each hashed with CRC32 (stable across processes, unlike ``hash()``) to a
dimension and a sign. Texts sharing words or word pieces get a high cosine, which is all
tests and hooks need; it knows nothing of meaning (no paraphrases).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgraph.embeddings import FAKE_MODEL_NAME

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Feature-hashing embedder; ``embed`` returns L2-normalised float32 rows."""

    def __init__(self, dim: int = 384, model_name: str = FAKE_MODEL_NAME) -> None:
        self.dim = dim
        self.model_name = model_name

    def _features(self, text: str) -> list[tuple[int, float]]:
        features: list[tuple[int, float]] = []
        for word in _WORD.findall(text.lower()):
            h = zlib.crc32(word.encode())
            features.append((h, 1.0))
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                features.append((zlib.crc32(padded[i : i + 3].encode(), 0x9E3779B9), 0.5))
        return features

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for h, weight in self._features(text):
                sign = 1.0 if (h >> 31) & 1 else -1.0
                out[row, h % self.dim] += sign * weight
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result: NDArray[np.float32] = out / norms
        return result
