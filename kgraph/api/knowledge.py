"""The knowledge side of :class:`~kgraph.api.Project`, beyond one call per method: what
``search`` and ``similar`` return and which embedder they use, the file check of a new
item, and the lookup of several ids or id prefixes.

A search is hybrid (words, vectors and graph) only when vectors can take part: an embedder
is configured, vectors of its model are stored (or the caller insists), and the model has
loaded. Deciding that, and saying why not in the result's ``note``, is logic two methods
share. These helpers live apart from the Project class so that each of its methods stays
one call into the knowledge package, and its module only what binds them: the database,
the root, the embedder and the caches.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kgraph.errors import InvalidValueError, NotFoundError

if TYPE_CHECKING:
    from kgraph.api.embedder import WarmEmbedder
    from kgraph.db import Database
    from kgraph.embeddings import Embedder
    from kgraph.knowledge import KnowledgeItem, SearchHit

SearchMode = Literal["hybrid", "lexical + graph"]


@dataclass(frozen=True)
class SearchResult:
    """Ranked hits and how they were found.

    ``mode`` is "hybrid" (BM25 + vectors + graph) or "lexical + graph" (no embedder, no
    stored vectors of its model, or the model still loading: ``note`` says which).
    Iterating a SearchResult iterates its hits.
    """

    hits: tuple[SearchHit, ...]
    mode: SearchMode
    note: str | None = None

    def __iter__(self) -> Any:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


def pick_embedder(
    warm: WarmEmbedder, semantic: bool | None, has_vectors: Callable[[str], bool]
) -> tuple[Embedder | None, str | None]:
    """The embedder a search uses, or None and why not (None, None: not asked for).

    ``semantic``: None — use vectors when the model is loaded, or when vectors of it are
    stored (``has_vectors(model)``; loading it here if nobody started loading it in the
    background); True — always (waits for the model); False — never.
    """
    if semantic is False or warm.model_name is None:
        return None, None
    if semantic is None and not has_vectors(warm.model_name):
        return None, f"no stored vectors of {warm.model_name} (run `kgraph embed`)"
    embedder = warm.get(wait=semantic is True or warm.state == "idle")
    if embedder is not None:
        return embedder, None
    if warm.state == "failed":
        return None, f"the embedding model failed to load: {warm.error}"
    return None, "the embedding model is still loading"


def similar_hits(
    db: Database, embedder: Embedder, text: str, *, limit: int, min_cosine: float
) -> tuple[SearchHit, ...]:
    """The items closest in meaning to ``text`` by ``embedder``'s stored vectors, nearest
    first, each scored by its cosine (items gone since the vector search are left out)."""
    from kgraph.knowledge import SearchHit, get_items, nearest

    vector = embedder.embed([text])[0]
    pairs = nearest(db, vector, embedder.model_name, limit=limit, min_score=min_cosine)
    items = get_items(db, [i for i, _ in pairs])
    return tuple(SearchHit(items[i], s, cosine=s) for i, s in pairs if i in items)


def check_item_file(path: str, root: Path) -> None:
    """An item is about a file of the project at ``root``: refuse a path outside it
    (/dev/zero, a home folder) and one that exists but is no regular file (a folder, FIFO,
    device)."""
    candidate = Path(path) if Path(path).is_absolute() else root / path
    try:
        resolved = candidate.resolve()
        inside = resolved == root.resolve() or root.resolve() in resolved.parents
        odd = resolved.exists() and not resolved.is_file()
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise InvalidValueError(f"file {path!r} cannot be read as a path: {exc}") from exc
    if not inside:
        raise InvalidValueError(f"file {path} is outside the project ({root})")
    if odd:
        raise InvalidValueError(f"file {path} is not a regular file (a folder or device)")


def items_by_id_or_prefix(db: Database, item_ids: Sequence[str]) -> dict[str, KnowledgeItem | None]:
    """Several items by id or unique id prefix (one read for the exact ids, one more for
    each other); None for each id that names nothing."""
    from kgraph.knowledge import get_item, get_items

    exact = get_items(db, item_ids)
    found: dict[str, KnowledgeItem | None] = {}
    for item_id in item_ids:
        found[item_id] = exact.get(item_id)
        if found[item_id] is None:
            with contextlib.suppress(NotFoundError):  # a prefix, or nothing
                found[item_id] = get_item(db, item_id)
    return found
