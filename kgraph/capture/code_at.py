"""The code a captured item names, read where the item describes it.

Capture records with each item the code names its files held (``data["code"]``, see
:mod:`kgraph.knowledge.codenames`), so that recall can tell once the code moved on. A
commit's message describes the files as that commit left them, so they are read at the
commit (a session's later commits may already have changed them); anything else a session
said describes the work tree the session ended with. An item of a commit also records the
lines its commit wrote in its code files (``data["wrote"]``,
:func:`~kgraph.knowledge.codenames.written_lines`), read from the commit and its parent.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kgraph.knowledge.codenames import read_source, written_lines
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
        """``item`` with ``data["code"]``, and ``data["wrote"]`` for a commit's message;
        ``ref`` is its capture ref (``commit:SHA[:n]`` for a commit's message)."""
        if not ref.startswith(COMMIT_REF):
            return with_held_code(item, self._work_tree, absent_is_news=False)
        sha = ref[len(COMMIT_REF) :].split(":", 1)[0]
        texts: dict[str, str | None] = {}

        def at_commit(path: str) -> str | None:
            if path not in texts:
                texts[path] = self.blobs.text(sha, path)
            return texts[path]

        item = with_held_code(item, at_commit)
        parent = f"{sha}^"
        wrote = written_lines(item.files, at_commit, lambda path: self.blobs.text(parent, path))
        return item if not wrote else replace(item, data={**item.data, "wrote": wrote})

    def _work_tree(self, path: str) -> str | None:
        if path.startswith("/") or ".." in Path(path).parts:
            return None
        return read_source(self.root / path)
