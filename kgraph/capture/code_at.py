"""The code a captured item names, read where the item describes it.

Capture records with each item the code names its files held (``data["code"]``, see
:mod:`kgraph.knowledge.codenames`), so that recall can tell once the code moved on. A
commit's message describes the files as that commit left them, so they are read at the
commit (a session's later commits may already have changed them); anything else a session
said describes the work tree the session ended with.
"""

from __future__ import annotations

from pathlib import Path

from kgraph.knowledge.codenames import read_source
from kgraph.knowledge.prepare import PreparedItem, with_held_code
from kgraph.runtime.git import Blobs

__all__ = ["CodeAt"]

COMMIT_REF = "commit:"


class CodeAt:
    """Records the held code names of items captured in ``root`` (``blobs`` reads commits)."""

    def __init__(self, root: Path, blobs: Blobs) -> None:
        self.root = root
        self.blobs = blobs

    def record(self, item: PreparedItem, ref: str) -> PreparedItem:
        """``item`` with ``data["code"]``; ``ref`` is its capture ref (``commit:SHA[:n]``
        for a commit's message)."""
        if ref.startswith(COMMIT_REF):
            sha = ref[len(COMMIT_REF) :].split(":", 1)[0]
            return with_held_code(item, lambda path: self.blobs.text(sha, path))
        return with_held_code(item, self._work_tree, absent_is_news=False)

    def _work_tree(self, path: str) -> str | None:
        if path.startswith("/") or ".." in Path(path).parts:
            return None
        return read_source(self.root / path)
