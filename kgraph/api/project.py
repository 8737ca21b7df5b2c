"""The :class:`Project` ``kgraph.open()`` returns: the library in one object.

A Project binds what every call needs — the database, the project root (for repo-relative
paths and the ``.claude/kgraph.toml`` settings) and the embedder — so callers write
``kg.search("...")`` instead of threading ``db``, ``project_root`` and an embedder through
each function. It is a thin layer: every method is one call into a package's public
function (or a helper of :mod:`kgraph.api.knowledge`), and the records it returns are
those packages' frozen records.

Long-lived holders (the MCP server, a notebook) call :meth:`Project.refresh` before each
use: it notices another process's commits (``PRAGMA data_version``) and a replaced file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgraph.api.embedder import WarmEmbedder
from kgraph.api.knowledge import (
    SearchMode,
    SearchResult,
    check_item_file,
    items_by_id_or_prefix,
    pick_embedder,
    similar_hits,
)
from kgraph.db import HEAD_REVISION, Database, DataWatch, open_database
from kgraph.errors import InvalidValueError, SchemaTooNewError

if TYPE_CHECKING:
    from kgraph.api.checkpoints import Milestones, Workflows
    from kgraph.api.codegraph import CodeGraph
    from kgraph.api.recall import Briefing, RecallResult
    from kgraph.capture import CaptureResult, HistoryReport, SyncResult
    from kgraph.knowledge import (
        AddResult,
        AreaRules,
        EmbedReport,
        KnowledgeItem,
        RelatedItem,
    )


class Project:
    """An open kgraph project: knowledge, checkpoints (``workflows``, ``milestones``) and
    the code graph (``graph``). Methods raise :class:`kgraph.KgraphError` subclasses."""

    def __init__(self, db: Database, root: Path, embedder: WarmEmbedder | None = None) -> None:
        self.db = db
        self.root = root
        self.embedder = embedder or WarmEmbedder()
        self._watch = DataWatch(db.path)
        self._rules: AreaRules | None = None
        self._cache: dict[tuple[Any, ...], Any] = {}
        self._cache_version: int | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<kgraph.Project {self.root} db={self.db.url}>"

    def close(self) -> None:
        self._watch.close()
        self.db.close()

    @property
    def url(self) -> str:
        return self.db.url

    def refresh(self) -> bool:
        """Make the next reads see the database as it is now; True when anything changed.

        A replaced file (restored, recreated, upgraded by a copy) is reopened — with the
        schema checked again, so a database a newer kgraph wrote raises SchemaTooNewError.
        Rows committed by other processes are seen by every read anyway (each read is its
        own transaction); what refresh drops are this object's small caches.
        """
        if self._watch.replaced():
            self._watch.close()
            self.db.close()
            self.db = open_database(self.db.url)
            self._watch = DataWatch(self.db.path)
            self._cache.clear()
            self._cache_version = None
            return True
        version = self._watch.version()
        if version is None or version != self._cache_version:
            self._check_schema()
            self._cache.clear()
            self._cache_version = version
            return True
        return False

    def _check_schema(self) -> None:
        """A newer kgraph may have upgraded the file in place: this process's queries would
        then be wrong, so it says so instead of answering."""
        revision = self._watch.schema_revision()
        if revision is not None and revision > HEAD_REVISION:
            raise SchemaTooNewError(
                f"{self.db.path} was upgraded to schema {revision} by a newer kgraph; this "
                f"process runs schema {HEAD_REVISION}: restart it"
            )

    def _cached(self, key: tuple[Any, ...], compute: Any) -> Any:
        """``compute()``, remembered until the data version moves (never when unknown)."""
        if self._watch.version() is None:
            return compute()
        self.refresh()
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def area_rules(self) -> AreaRules:
        from kgraph.knowledge import load_area_rules

        if self._rules is None:
            self._rules = load_area_rules(self.root)
        return self._rules

    def relative(self, path: str) -> str:
        """``path`` as the repo-relative string stored knowledge and the code graph use."""
        from kgraph.knowledge import relative_path

        return relative_path(path, self.root)

    # -- knowledge -------------------------------------------------------------------------

    def learn(
        self,
        text: str,
        *,
        type: str = "Learning",
        files: Sequence[str] = (),
        code_area: str | None = None,
        confidence: float = 0.7,
        issue: int | None = None,
        source: str = "manual",
        source_ref: str | None = None,
        session_id: str | None = None,
        embed: bool | None = None,
    ) -> AddResult:
        """Store ``text`` (secrets redacted; the same text again bumps it, not a copy).

        ``embed``: None — embed now when the embedder is cheap or already loaded, else
        leave it to :meth:`embed`; True — load the model if needed and embed; False — never.
        """
        from kgraph.knowledge import add_item

        for path in files:
            check_item_file(path, self.root)
        embedder = None if embed is False else self.embedder.get(wait=bool(embed))
        return add_item(
            self.db,
            text,
            type=type,
            code_area=code_area,
            files=files,
            confidence=confidence,
            source=source,
            source_ref=source_ref,
            issue_number=issue,
            session_id=session_id,
            embedder=embedder,
            project_root=self.root,
            area_rules=self.area_rules,
        )

    def candidates(self, *, limit: int = 50) -> list[KnowledgeItem]:
        """Captured items waiting for corroboration, newest first: nothing returns them
        until they are said again, or accepted here (:meth:`review`)."""
        from kgraph.knowledge import list_candidates

        return list_candidates(self.db, limit=limit)

    def review(self, item_id: str, *, accept: bool) -> str:
        """Accept a captured candidate (shown from now on) or reject it (hidden for good);
        the item's id. InvalidValueError for an item that is not a candidate."""
        from kgraph.knowledge import review_candidate

        return review_candidate(self.db, item_id, accept)

    def get(self, item_id: str) -> KnowledgeItem:
        """One item by id or unique id prefix (NotFoundError when there is none)."""
        from kgraph.knowledge import get_item

        return get_item(self.db, item_id)

    def get_many(self, item_ids: Sequence[str]) -> dict[str, KnowledgeItem | None]:
        """Several items by id or prefix (one read for exact ids); None for each id that
        names nothing."""
        return items_by_id_or_prefix(self.db, item_ids)

    def _has_vectors(self, model: str) -> bool:
        from kgraph.knowledge import has_vectors

        return bool(self._cached(("has_vectors", model), lambda: has_vectors(self.db, model)))

    def search(
        self,
        query: str,
        *,
        types: Sequence[str] | None = None,
        file: str | None = None,
        code_area: str | None = None,
        limit: int = 10,
        include_superseded: bool = False,
        semantic: bool | None = None,
    ) -> SearchResult:
        """Knowledge matching ``query`` by words, meaning and graph proximity, best first.

        ``semantic``: None — use vectors when the model is loaded, or when vectors of it
        are stored (loading it here if nobody started loading it in the background);
        True — always (waits for the model); False — lexical + graph only.
        """
        from kgraph.knowledge import search_items

        if not query.strip():  # before the model loads (~10 s), not after
            raise InvalidValueError("empty search query")
        embedder, note = pick_embedder(self.embedder, semantic, self._has_vectors)
        hits = search_items(
            self.db,
            query,
            types=types,
            code_area=code_area,
            file=self.relative(file) if file else None,
            limit=limit,
            embedder=embedder,
            include_superseded=include_superseded,
        )
        mode: SearchMode = "hybrid" if embedder is not None else "lexical + graph"
        return SearchResult(tuple(hits), mode, note)

    def similar(
        self, text: str, *, limit: int = 10, min_cosine: float = 0.0, semantic: bool | None = None
    ) -> SearchResult:
        """The items closest in meaning to ``text`` (vectors alone: no words, no graph);
        ``hit.score`` is the cosine. Empty, with the reason in ``note``, without an
        embedder or stored vectors of its model (``semantic`` as in :meth:`search`)."""
        embedder, note = pick_embedder(self.embedder, semantic, self._has_vectors)
        if embedder is None:
            return SearchResult((), "lexical + graph", note)
        hits = similar_hits(self.db, embedder, text, limit=limit, min_cosine=min_cosine)
        return SearchResult(hits, "hybrid", None)

    def query(
        self,
        *,
        files: Sequence[str] = (),
        code_areas: Sequence[str] = (),
        issue: int | None = None,
        types: Sequence[str] | None = None,
        limit: int = 50,
        file_areas: bool = True,
        include_superseded: bool = False,
    ) -> list[KnowledgeItem]:
        """Items about any of ``files`` / ``code_areas`` or tied to ``issue`` (ranked).

        ``file_areas``: the code areas of ``files`` count too (a file's query also finds
        its area's patterns); False keeps to the files themselves. ``include_superseded``
        adds forgotten and superseded items.
        """
        from kgraph.knowledge import query_items

        return query_items(
            self.db,
            files=[self.relative(f) for f in files],
            code_areas=code_areas,
            issue_number=issue,
            types=types,
            limit=limit,
            area_rules=self.area_rules,
            expand_file_areas=file_areas,
            include_superseded=include_superseded,
        )

    def related(
        self, item_id: str, *, hops: int = 2, limit: int = 50, types: Sequence[str] | None = None
    ) -> tuple[KnowledgeItem, list[RelatedItem]]:
        """The item and what lies within ``hops`` edges of it, nearest first."""
        from kgraph.knowledge import related

        return related(self.db, item_id, hops=hops, limit=limit, types=types)

    def embed(self, *, reembed: bool = False) -> EmbedReport:
        """Add vectors of the project's embedder to the items lacking one (loads the model)."""
        from kgraph.knowledge import embed_missing

        embedder = self.embedder.get(wait=True)
        if embedder is None:
            raise InvalidValueError(
                f"no embedder available ({self.embedder.error or 'semantic search is off'})"
            )
        return embed_missing(self.db, embedder, reembed=reembed)

    def recall(
        self,
        prompt: str,
        *,
        limit: int = 8,
        exclude: Sequence[str] = (),
        semantic: bool | None = None,
        session_id: str | None = None,
    ) -> RecallResult:
        """What the project knows that bears on ``prompt``: the prompt hook's ranking (the
        code it names, telling words) fused with meaning (see kgraph.api.recall).

        With ``session_id``, what the prompt hook would hold back from that Claude Code
        session is left out (kgraph.recall.readmodel.held_back: items already given to it by
        any hook or an earlier recall, those its start found on another branch, those shown
        unused to the latest sessions, the other parts of a commit it was shown), and so are
        items learned from commits before the project's latest changes; the ones returned
        are remembered as given, exactly as the prompt hook does.
        """
        from kgraph.api.recall import held_back, recall
        from kgraph.runtime import enqueue, remember_seen, seen_state

        state = seen_state(self.root, session_id)
        held = set(exclude) | (held_back(self, session_id, state) if session_id else set())
        result = recall(
            self, prompt, limit=limit, exclude=sorted(held), semantic=semantic, recent=state.recent
        )
        if session_id and result.items:
            given = [r.item.id for r in result.items]
            remember_seen(self.root, session_id, given)
            enqueue(self.root, "injected", session_id=session_id, injected_ids=given)
        return result

    def context_for(
        self,
        *,
        files: Sequence[str] = (),
        prompt: str | None = None,
        branch: str | None = None,
        max_chars: int = 9_000,
    ) -> Briefing:
        """The ``<kgraph-context>`` briefing session-start would give with ``files`` changed
        on ``branch`` (their knowledge, their dependents', the checkpoint, project rules),
        then what recalls ``prompt``."""
        from kgraph.api.recall import context_for

        return context_for(self, files=files, prompt=prompt, branch=branch, max_chars=max_chars)

    # -- capture ---------------------------------------------------------------------------

    def capture_session(
        self, session_id: str, *, transcript_path: str | None = None
    ) -> CaptureResult:
        """Capture a Claude Code session's transcript and commits as knowledge (idempotent)."""
        from kgraph.capture import capture_session

        return capture_session(
            self.db, self.root, session_id, transcript_path=transcript_path, final=True
        )

    def learn_from_git(
        self,
        *,
        since: str | None = None,
        limit: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> HistoryReport:
        """Store what the repository's commit messages explain, each dated and tied to its
        files (idempotent: a second run adds only newer commits). ``since``: any date git
        understands; ``limit``: newest commits read (default 2,000); ``progress(done, total)``.
        """
        from kgraph.capture import learn_from_history

        return learn_from_history(self.db, self.root, since=since, limit=limit, progress=progress)

    def sync_claude_md(self) -> SyncResult:
        """Store the project's CLAUDE.md sections as knowledge (source ``claude_md``)."""
        from kgraph.capture import sync_claude_md

        return sync_claude_md(self.db, self.root)

    # -- namespaces ------------------------------------------------------------------------

    @property
    def workflows(self) -> Workflows:
        from kgraph.api.checkpoints import Workflows

        return Workflows(self.db)

    @property
    def milestones(self) -> Milestones:
        from kgraph.api.checkpoints import Milestones

        return Milestones(self.db)

    @property
    def graph(self) -> CodeGraph:
        from kgraph.api.codegraph import CodeGraph

        return CodeGraph(self)
