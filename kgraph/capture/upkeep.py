"""What the capture worker does once its queue is drained: vectors for what it captured,
the code graph brought up to date when a session starts or ends, and on a server the
hooks' local copy and the vector index. Each step logs its failure and never stops the others."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

__all__ = ["embed_captured", "index_vectors", "refresh_copy", "refresh_graph"]


def refresh_copy(db: Any, root: Path, log: Any) -> None:
    """On a server, bring the hooks' local copy up to date (kgraph.db.mirror); a failure is
    logged, and the hooks keep reading the copy they have."""
    if db.dialect != "postgresql":
        return
    from kgraph.db.mirror_sync import refresh_mirror
    from kgraph.runtime.state import ensure_state_dir

    try:
        report = refresh_mirror(db, ensure_state_dir(root))
    except Exception as exc:
        log.error("refreshing the local copy failed: %s: %s", type(exc).__name__, exc)
        return
    log.info(
        "local copy refreshed in %.2f s: copied %s, unchanged %s",
        report.seconds,
        report.copied or "nothing",
        ", ".join(report.unchanged) or "nothing",
    )


def embed_captured(db: Any, log: Any) -> None:
    """Vectors for the items captured, so semantic search and prompt recall see them without
    a manual ``kgraph embed``; near-duplicates among them merge with what is stored
    (kgraph.knowledge.backfill.merge_near_duplicates). Here, in the detached worker, once a
    session has ended: the model loads in this process (seconds of CPU, a few hundred MB,
    for as long as the worker runs), never in a hook. A candidate another session said in
    other words is shown then (kgraph.knowledge.candidates.corroborate_similar). Without the
    model installed it is left to ``kgraph embed``; a failure is logged."""
    from kgraph.embeddings import get_embedder
    from kgraph.knowledge.backfill import embed_missing
    from kgraph.knowledge.candidates import corroborate_similar

    started = time.process_time()
    try:
        embedder = get_embedder()
        report = embed_missing(db, embedder)
        shown = corroborate_similar(db, report.model, report.dim)
    except Exception as exc:
        log.warning("embedding captured items skipped: %s: %s", type(exc).__name__, exc)
        return
    log.info(
        "embedded %d items with %s (%d merged as near-duplicates, %d candidates said again "
        "by another session) in %.1f CPU-s",
        report.embedded,
        report.model,
        report.merged,
        shown,
        time.process_time() - started,
    )


def index_vectors(db: Any, log: Any) -> None:
    """On a server with pgvector, build the HNSW index of the configured model's vectors
    if it is missing (items embedded as they were added, a project copied to the server);
    a no-op costing one catalog query once it exists. A failure is logged."""
    if db.dialect != "postgresql":
        return
    from kgraph.embeddings import model_name_for
    from kgraph.knowledge.backfill import build_vector_index

    try:
        if build_vector_index(db, model_name_for()):
            log.info("vector index of %s ready on the server", model_name_for())
    except Exception as exc:
        log.error("building the vector index failed: %s: %s", type(exc).__name__, exc)


def refresh_graph(db: Any, root: Path, log: Any) -> None:
    """When a session has started or ended, re-parse into the code graph the files changed
    since it was parsed (a checkout, a pull, the session's own edits), when the project has
    one (``kgraph install`` parses it; only changed files are read again, in one process):
    the prompt hook resolves the names a prompt writes through it, and a graph that missed
    the functions a checkout brought would not find them. A failure is logged.

    Only a project's own SQLite database: a team's server holds one graph for every clone,
    and one member's checkout must not replace it at each of their session starts (whoever
    means to runs ``kgraph graph parse .``)."""
    from kgraph.codegraph import has_graph, parse_repository

    if db.dialect != "sqlite":
        return
    try:
        if not has_graph(db):
            return
        report = parse_repository(db, root, root=root, jobs=1)
    except Exception as exc:
        log.error("refreshing the code graph failed: %s: %s", type(exc).__name__, exc)
        return
    log.info("code graph refreshed: %s", report.summary())
