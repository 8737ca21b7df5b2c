"""Hybrid search: FTS5 BM25 + vector similarity + graph proximity, fused by reciprocal rank.

Three ranked candidate lists are built in one read transaction:

1. **lexical** — the query's words (stopwords dropped, quoted, OR-ed) against the FTS5
   index, best BM25 first;
2. **semantic** — with an embedder, the cosine of the query vector against every stored
   vector of that embedder's model (one numpy matrix product; on a PostgreSQL server with
   pgvector, the server's HNSW index picks the nearest first: kgraph.knowledge.vectors.ranked),
   those above ``MIN_COSINE``; items without a vector for the model are not in this list;
3. **graph** — candidates from 1–2 that share a File (weight 2) or CodeArea (weight 1)
   with the top fused hits (or with ``file``/``code_area`` when given): knowledge that
   lives next to the best matches.

Fusion: ``score = sum(weight / (60 + rank))`` over the lists an item is in (reciprocal-rank
fusion; weights 1, 1, 0.5), times ``0.8 + 0.2 * confidence``. Without an embedder the
search is lexical + graph and imports neither numpy nor torch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from kgraph.db import Database
from kgraph.db.fts import ranked_matches
from kgraph.errors import InvalidValueError
from kgraph.knowledge.model import parse_types
from kgraph.knowledge.query import linked_clause, linked_ids
from kgraph.knowledge.records import (
    ENTITIES,
    RELATIONSHIPS,
    TARGET_EDGES,
    KnowledgeItem,
    chunks,
    load_items,
    visible_clause,
)

if TYPE_CHECKING:
    from kgraph.embeddings import Embedder

RRF_K = 60
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
GRAPH_WEIGHT = 0.5
CANDIDATES = 100
LEXICAL_POOL = 300
MIN_COSINE = 0.2
GRAPH_SEEDS = 3
MAX_ID_LIST = 5000


@dataclass(frozen=True)
class SearchHit:
    """One ranked result and the signals behind its score."""

    item: KnowledgeItem
    score: float
    lexical_rank: int | None = None
    cosine: float | None = None
    graph: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.item.to_dict(),
            "score": round(self.score, 6),
            "signals": {
                "lexical_rank": self.lexical_rank,
                "cosine": None if self.cosine is None else round(self.cosine, 4),
                "graph": self.graph,
            },
        }


def _lexical(conn: Connection, query: str, filters: list[Any], narrow: bool) -> list[str]:
    """Ids of matching items, best BM25 first.

    Without a narrowing filter (file/area) only the best ``LEXICAL_POOL`` FTS matches are
    joined and filtered: ranks beyond that add nothing to the fusion, and filtering every
    match of a common word costs ~10 ms per 1k matches.
    """
    ranked = ranked_matches(query, conn.dialect.name)
    if ranked is None:
        return []
    if not narrow:
        ranked = ranked.order_by("bm25").limit(LEXICAL_POOL)
    matches = ranked.subquery()
    rows = conn.execute(
        select(matches.c.entity_id)
        .join(ENTITIES, ENTITIES.c.id == matches.c.entity_id)
        .where(*filters)
        .order_by(matches.c.bm25, ENTITIES.c.confidence.desc())
        .limit(CANDIDATES)
    ).all()
    return [r[0] for r in rows]


def _semantic(
    conn: Connection,
    query: str,
    embedder: Embedder,
    types: Sequence[str],
    about: set[str] | None,
    include_superseded: bool,
) -> list[tuple[str, float]]:
    from kgraph.knowledge.vectors import ranked

    vector = embedder.embed([query])[0]
    hits = ranked(
        conn,
        vector,
        embedder.model_name,
        CANDIDATES,
        types=types,
        include_superseded=include_superseded,
        allowed=about,
    )
    return [(i, s) for i, s in hits if s >= MIN_COSINE]


def _neighbours(conn: Connection, ids: Sequence[str]) -> dict[str, set[str]]:
    """Each id's CodeArea/File neighbours (the targets of its ABOUT/IN_FILE/APPLIES_TO)."""
    out: dict[str, set[str]] = defaultdict(set)
    for part in chunks(list(ids)):
        for from_id, to_id in conn.execute(
            select(RELATIONSHIPS.c.from_id, RELATIONSHIPS.c.to_id).where(
                RELATIONSHIPS.c.from_id.in_(part), RELATIONSHIPS.c.type.in_(TARGET_EDGES)
            )
        ).all():
            out[from_id].add(to_id)
    return out


def _rrf(ranked: Sequence[str], weight: float, scores: dict[str, float]) -> None:
    for rank, entity_id in enumerate(ranked, 1):
        scores[entity_id] += weight / (RRF_K + rank)


def search(
    db: Database,
    query: str,
    *,
    types: Sequence[str] | None = None,
    code_area: str | None = None,
    file: str | None = None,
    limit: int = 10,
    embedder: Embedder | None = None,
    include_superseded: bool = False,
) -> list[SearchHit]:
    """The knowledge items best matching ``query``, best first (see module docstring).

    ``types`` (default: all knowledge types), ``code_area`` and ``file`` filter the
    candidates; forgotten and superseded items are left out unless ``include_superseded``.
    """
    if limit <= 0:
        raise InvalidValueError("limit must be positive")
    if not query.strip():
        raise InvalidValueError("empty search query")
    wanted = parse_types(types)

    def read(conn: Connection) -> list[SearchHit]:
        about = linked_ids(conn, file=file, code_area=code_area) if file or code_area else None
        filters = [ENTITIES.c.type.in_(wanted), visible_clause(include_superseded)]
        if about is not None:
            # A literal id list is fastest; a huge one (a busy area) would exceed SQLite's
            # bound-variable limit, so it becomes a correlated EXISTS instead.
            filters.append(
                ENTITIES.c.id.in_(about)
                if len(about) <= MAX_ID_LIST
                else linked_clause(conn, file=file, code_area=code_area)
            )
        lexical = _lexical(conn, query, filters, narrow=about is not None)
        semantic = (
            _semantic(conn, query, embedder, wanted, about, include_superseded)
            if embedder is not None
            else []
        )
        scores: dict[str, float] = defaultdict(float)
        _rrf(lexical, LEXICAL_WEIGHT, scores)
        _rrf([i for i, _ in semantic], VECTOR_WEIGHT, scores)
        if not scores:
            return []
        candidates = list(scores)
        neighbours = _neighbours(conn, candidates)
        # Anchors: the File/CodeArea neighbours of the top hits, with the seeds linked to each.
        anchor_seeds: dict[str, set[str]] = defaultdict(set)
        for seed in sorted(candidates, key=lambda i: -scores[i])[:GRAPH_SEEDS]:
            for target in neighbours.get(seed, ()):
                anchor_seeds[target].add(seed)
        weights: dict[str, float] = {}
        if anchor_seeds:
            for target, type_ in conn.execute(
                select(ENTITIES.c.id, ENTITIES.c.type).where(ENTITIES.c.id.in_(list(anchor_seeds)))
            ).all():
                weights[target] = 2.0 if type_ == "File" else 1.0
        # An item's proximity: anchors it shares with a seed other than itself.
        graph = {
            i: sum(
                weights.get(t, 0.0)
                for t in neighbours.get(i, ())
                if anchor_seeds.get(t, set()) - {i}
            )
            for i in candidates
        }
        graph_ranked = sorted((i for i in candidates if graph[i] > 0), key=lambda i: -graph[i])
        _rrf(graph_ranked, GRAPH_WEIGHT, scores)
        items = load_items(conn, sorted(scores, key=lambda i: -scores[i])[: limit * 3])
        lexical_rank = {entity_id: rank for rank, entity_id in enumerate(lexical, 1)}
        cosine = dict(semantic)
        hits = [
            SearchHit(
                item=item,
                score=scores[item.id] * (0.8 + 0.2 * item.confidence),
                lexical_rank=lexical_rank.get(item.id),
                cosine=cosine.get(item.id),
                graph=graph.get(item.id) or None,
            )
            for item in items.values()
        ]
        hits.sort(key=lambda h: (-h.score, h.item.id))
        return hits[:limit]

    return db.read(read)
