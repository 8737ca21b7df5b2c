"""What capture may store: a candidate knowledge item with its idempotence reference.

Every candidate carries a ``ref`` unique within its session ("commit:<sha>",
"summary:<content hash>", "say:<content hash>", ...), derived from its content so that
reading a transcript in other batches finds the same refs. Capture checks
``(source, source_ref)`` in the knowledge store before storing, so capturing the same session
again adds nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    ref: str
    type: str  # "Learning" | "Pattern" | "Mistake" | "Topic"
    content: str
    files: tuple[str, ...] = ()
    code_area: str | None = None
    confidence: float = 0.7
    source: str = "transcript"
    # Stated as knowledge in so many words (the user's "remember this", a model's answer to
    # "what is worth keeping"): the rubric does not ask it for a marker of cause or rule.
    stated: bool = False


def text_hash(text: str, length: int = 12) -> str:
    normal = " ".join(text.split()).lower()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:length]
