"""Hybrid search: lexical, semantic and graph signals fused; filters; visibility."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.embeddings import Embedder
from kgraph.errors import InvalidValueError
from kgraph.knowledge import add_item, set_hidden, supersede
from kgraph.knowledge.search import SearchHit, search


def _ids(hits: list[SearchHit]) -> list[str]:
    return [h.item.id for h in hits]


def test_lexical_search_without_vectors(db: Database) -> None:
    target = add_item(
        db,
        "Use structured logging via rd-logger; print() is dropped in prod",
        files=["src/api/handler.py"],
    ).entity_id
    add_item(db, "Paginate API results with cursors")
    hits = search(db, "logging in production")  # porter stemming: logging ~ log
    assert _ids(hits) == [target]
    assert hits[0].lexical_rank == 1 and hits[0].cosine is None
    assert hits[0].item.files == ("src/api/handler.py",)


def test_query_syntax_is_never_interpreted(db: Database) -> None:
    add_item(db, 'quotes "and" NEAR(stars*) OR are plain text')
    assert len(search(db, 'NEAR( "and" OR * -')) == 1
    assert search(db, "zzzunknownword") == []
    with pytest.raises(InvalidValueError):
        search(db, "   ")


def test_hybrid_search_uses_vectors_of_the_embedders_model(db: Database, fake: Embedder) -> None:
    a = add_item(db, "structured logging configuration", embedder=fake).entity_id
    add_item(db, "pagination cursors for list endpoints", embedder=fake)
    hits = search(db, "logging structure", embedder=fake)
    assert hits[0].item.id == a
    assert hits[0].cosine is not None and hits[0].cosine > 0.2


def test_semantic_only_match_is_found(db: Database, fake: Embedder) -> None:
    # No query word (nor its stem) is in the text, but word pieces (trigrams) are: only
    # the vectors see the match.
    target = add_item(db, "logbooks and stacktraces", embedder=fake).entity_id
    add_item(db, "pagination cursors", embedder=fake)
    lexical = search(db, "logging stacks")
    hybrid = search(db, "logging stacks", embedder=fake)
    assert target not in _ids(lexical)
    assert _ids(hybrid)[0] == target and hybrid[0].lexical_rank is None


def test_type_file_and_area_filters(db: Database) -> None:
    learning = add_item(db, "cache invalidation on write", files=["src/cache/store.py"]).entity_id
    pattern = add_item(
        db, "cache invalidation pattern", type="Pattern", code_area="Cache"
    ).entity_id
    other = add_item(db, "cache warmup at start", files=["src/api/boot.py"]).entity_id
    assert set(_ids(search(db, "cache"))) == {learning, pattern, other}
    assert _ids(search(db, "cache", types=["pattern"])) == [pattern]
    assert _ids(search(db, "cache", file="src/cache/store.py")) == [learning]
    assert set(_ids(search(db, "cache", code_area="Cache"))) == {learning, pattern}
    assert _ids(search(db, "cache", limit=1))[0] in {learning, pattern, other}
    assert len(search(db, "cache", limit=1)) == 1


def test_superseded_and_forgotten_items_are_left_out(db: Database, fake: Embedder) -> None:
    old = add_item(db, "deploy with fabric", embedder=fake).entity_id
    new = add_item(db, "deploy with github actions", embedder=fake).entity_id
    gone = add_item(db, "deploy on fridays", embedder=fake).entity_id
    supersede(db, old, new)
    set_hidden(db, gone, True)
    assert set(_ids(search(db, "deploy", embedder=fake))) == {new}
    assert set(_ids(search(db, "deploy", embedder=fake, include_superseded=True))) == {
        old,
        new,
        gone,
    }


def test_graph_proximity_lifts_items_next_to_the_best_match(db: Database) -> None:
    # Two equally weak lexical matches for "retry"; the one sharing a file with the best
    # match ("retry locked database writes") must rank above the one that does not.
    best = add_item(
        db, "retry locked database writes retry retry", files=["kgraph/db/retry.py"]
    ).entity_id
    near = add_item(db, "a retry note", files=["kgraph/db/retry.py"]).entity_id
    far = add_item(db, "a retry memo", files=["docs/notes.md"]).entity_id
    hits = search(db, "retry")
    order = _ids(hits)
    assert order[0] == best
    assert order.index(near) < order.index(far)
    assert next(h for h in hits if h.item.id == near).graph
    assert not next(h for h in hits if h.item.id == far).graph


def test_hits_serialise_with_signals(db: Database) -> None:
    add_item(db, "index the foreign keys", code_area="Database")
    data = search(db, "foreign keys")[0].to_dict()
    assert data["score"] > 0 and data["signals"]["lexical_rank"] == 1
    assert data["code_areas"] == ["Database"]


def test_area_filter_works_beyond_the_id_list_limit(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgraph.knowledge.search as search_module

    monkeypatch.setattr(search_module, "MAX_ID_LIST", 1)
    inside = add_item(db, "cache keys include the tenant", code_area="Cache").entity_id
    add_item(db, "cache keys expire hourly", code_area="Cache")
    outside = add_item(db, "cache keys are hashed", code_area="API").entity_id
    ids = _ids(search(db, "cache keys", code_area="Cache"))
    assert inside in ids and outside not in ids and len(ids) == 2
