"""The work that runs in worker processes: parsing files, and resolving batches of files.

Parsing is embarrassingly parallel. Resolution needs every summary: a resolve pool is
forked *after* the parent holds them all, so workers share them copy-on-write; each worker
opens its own database connection and writes its batches (short transactions, retried on
lock). With ``jobs=1`` or little work everything runs in-process.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.codegraph.build import FileRows, resolve_file
from kgraph.codegraph.changes import site_entries
from kgraph.codegraph.langs import LANGUAGES
from kgraph.codegraph.langs import parse_source as parse_other
from kgraph.codegraph.modules import ModuleIndex
from kgraph.codegraph.pools import can_fork, new_pool, trim_heap
from kgraph.codegraph.resolve import Resolver
from kgraph.codegraph.summary import Summary, new_summary
from kgraph.codegraph.summary_codec import content_hash, encode_summary

# progress(stage, done, total); stages: "wait" (for another parse, total 0), "parse", "resolve"
Progress = Callable[[str, int, int], None]
PARSE_INLINE_LIMIT = 40  # fewer files than this are parsed in-process
RESOLVE_INLINE_LIMIT = 150
BATCH = 100  # files a batch (one write transaction) at most
CRASH_GROUP = 32  # files parsed again per fresh pool after a worker died


@dataclass(frozen=True)
class Parsed:
    """A parsed file as a worker returns it: the summary is serialised once, in the worker."""

    path: str
    language: str
    summary_json: str
    errors: int
    size: int
    digest: str


def parse_source(language: str, data: bytes) -> Summary:
    """Summarise one file's bytes."""
    if language == "python":
        from kgraph.codegraph.parse_python import parse_python

        return parse_python(data)
    if language in LANGUAGES:  # Go and the others of kgraph.codegraph.langs
        return parse_other(language, data)
    from kgraph.codegraph.parse_ts import parse_script

    return parse_script(data, language)


def parse_one(item: tuple[str, str, str]) -> Parsed | None:
    path, absolute, language = item
    try:
        data = Path(absolute).read_bytes()
    except OSError:
        return None
    try:
        summary = parse_source(language, data)
    except Exception as exc:  # a summariser bug must not stop a whole repository's parse
        return failed_parse(item, data, f"{type(exc).__name__}: {exc}")
    return Parsed(
        path,
        summary["lang"],
        encode_summary(summary),
        summary["errors"],
        len(data),
        content_hash(data),
    )


def failed_parse(item: tuple[str, str, str], data: bytes | None, reason: str) -> Parsed | None:
    """The file of ``item`` recorded as failed with ``reason`` (its bytes read again when
    ``data`` is None; None when it cannot be read)."""
    path, absolute, language = item
    if data is None:
        try:
            data = Path(absolute).read_bytes()
        except OSError:
            return None
    summary = new_summary(language)
    summary["errors"] = 1
    summary["failed"] = reason
    return Parsed(path, language, encode_summary(summary), 1, len(data), content_hash(data))


def parse_all(
    items: list[tuple[str, str, str]], jobs: int, progress: Progress | None
) -> Iterator[Parsed]:
    if jobs <= 1 or len(items) < PARSE_INLINE_LIMIT:
        for i, item in enumerate(items, 1):
            result = parse_one(item)
            if progress:
                progress("parse", i, len(items))
            if result is not None:
                yield result
        return
    # Big files first so no worker is left with a long one at the end.
    items = sorted(items, key=lambda item: -_size(item[1]))
    chunk = max(1, min(8, len(items) // (jobs * 16)))
    trim_heap()
    for i, result in enumerate(_parse_pooled(items, jobs, chunk), 1):
        if progress and (i % 10 == 0 or i == len(items)):
            progress("parse", i, len(items))
        if result is not None:
            yield result


def _parse_pooled(
    items: list[tuple[str, str, str]], jobs: int, chunk: int
) -> Iterator[Parsed | None]:
    """Every item's result, in order, parsed by ``jobs`` workers.

    A worker that dies (a crash in a grammar's native code ends the process, it raises
    nothing) breaks the whole pool. The files not returned yet are then parsed again,
    CRASH_GROUP at a time in fresh pools; when a group's pool breaks too, each of its files
    is parsed alone, and one that kills its worker alone is recorded as failed. One such
    file costs its own graph, not the repository's parse."""
    done = 0
    try:
        with new_pool(jobs) as pool:
            for result in pool.map(parse_one, items, chunksize=chunk):
                done += 1
                yield result
        return
    except BrokenProcessPool:
        pass
    rest = items[done:]
    for start in range(0, len(rest), CRASH_GROUP):
        group = rest[start : start + CRASH_GROUP]
        try:
            with new_pool(jobs) as pool:
                results = list(pool.map(parse_one, group))
        except BrokenProcessPool:
            results = [_parse_alone(item) for item in group]
        yield from results


def _parse_alone(item: tuple[str, str, str]) -> Parsed | None:
    try:
        with new_pool(1) as pool:
            return pool.submit(parse_one, item).result()
    except BrokenProcessPool:
        return failed_parse(item, None, "the parser's process crashed on this file")


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# -- resolution ---------------------------------------------------------------------------
class SiteIndex:
    """Call-site key -> the files with such call sites (see
    :func:`~kgraph.codegraph.changes.site_entries`): for the files parsed in this run
    (``parsed``), from their summaries; for the others, from what their last resolution
    stored (``stored``: the files resolved since their last parse), else from their
    summaries. Built on first use: a run that binds no parameter never needs it. Each
    file's sites are computed once: all of them, or those of each key searched (an edit
    searches a few keys in files that were not parsed)."""

    def __init__(
        self,
        paths: set[str],
        summaries: dict[str, Summary],
        stored: Callable[[], dict[str, list[str]]] | None,
        parsed: AbstractSet[str] = frozenset(),
    ) -> None:
        self._paths = paths
        self._summaries = summaries
        self._stored = stored
        self._parsed = parsed
        self._files: dict[str, list[str]] | None = None
        self._entries: dict[str, dict[str, list[tuple[str, str, int]]]] = {}
        self._keyed: dict[tuple[str, str], dict[str, list[tuple[str, str, int]]]] = {}

    def files(self, key: str) -> list[str]:
        if self._files is None:
            self._files = self._build()
        return self._files.get(key, [])

    def entries(
        self, path: str, summary: Summary, only: str | None = None
    ) -> dict[str, list[tuple[str, str, int]]]:
        """A file's sites by key; ``only``: at least those of that key (computed alone
        unless all the file's are known already)."""
        found = self._entries.get(path)
        if found is not None:
            return found
        if only is None:
            found = self._entries[path] = site_entries(summary)
            return found
        keyed = self._keyed.get((path, only))
        if keyed is None:
            keyed = self._keyed[path, only] = site_entries(summary, only)
        return keyed

    def _build(self) -> dict[str, list[str]]:
        stored: dict[str, list[str]] = {}
        if self._stored is not None and not self._paths.issubset(self._parsed):
            stored = self._stored()
        parsed = self._parsed
        index: dict[str, list[str]] = {}
        for path in sorted(self._paths):
            keys = stored.get(path) if path not in parsed else None
            if keys is None:
                summary = self._summaries.get(path)
                keys = list(self.entries(path, summary)) if summary is not None else []
            for key in keys:
                index.setdefault(key, []).append(path)
        return index


@dataclass
class ResolveState:
    """What resolving needs; a forked worker inherits it through the module global."""

    db_url: str
    all_paths: set[str]
    summaries: dict[str, Summary]
    fresh: bool = False  # the files to resolve have no rows yet: nothing to delete
    writer: Callable[[dict[str, FileRows]], tuple[int, int]] | None = None
    loader: Callable[[str], Summary | None] | None = None
    stored_sites: Callable[[], dict[str, list[str]]] | None = None
    parsed: AbstractSet[str] = frozenset()  # the files parsed in this run
    sites: SiteIndex | None = field(default=None, repr=False)
    resolver: Resolver | None = field(default=None, repr=False)

    def get_resolver(self) -> Resolver:
        if self.resolver is None:

            def load(path: str) -> Summary | None:
                found = self.summaries.get(path)
                if found is None and self.loader is not None and path in self.all_paths:
                    found = self.loader(path)
                return found

            if self.sites is None:
                self.sites = SiteIndex(
                    self.all_paths, self.summaries, self.stored_sites, self.parsed
                )
            self.resolver = Resolver(ModuleIndex(self.all_paths), load, self.sites)
        return self.resolver


_STATE: ResolveState | None = None


def resolve_batch(paths: list[str], state: ResolveState | None = None) -> tuple[int, int, int]:
    """Resolve ``paths`` and write their rows; returns (entities, edges) written, and the
    number of files recorded as failed (:func:`~kgraph.codegraph.build.resolve_file`)."""
    state = state or _STATE
    assert state is not None
    if state.writer is None:  # in a forked worker: a connection of its own
        from kgraph.codegraph import store
        from kgraph.db import open_database

        db = open_database(state.db_url)
        fresh = state.fresh
        state.writer = lambda batch: store.write_rows(db, batch, fresh)
        state.loader = lambda path: db.read(lambda c: store.load_summaries(c, [path])).get(path)
        state.stored_sites = lambda: db.read(store.site_keys)
    resolver = state.get_resolver()
    batch: dict[str, FileRows] = {}
    for path in paths:
        summary = resolver.summary(path)
        if summary is not None:
            batch[path] = resolve_file(path, summary, resolver)
    if not batch:
        return 0, 0, 0
    failed = sum(1 for rows in batch.values() if "failed" in rows.deps)
    return (*state.writer(batch), failed)


def _cost(summary: Summary | None) -> int:
    """A file's resolution work, roughly: its calls, definitions and imports."""
    if summary is None:
        return 0
    return (
        sum(len(refs) for refs in summary["calls"].values()) // 2
        + len(summary["defs"])
        + len(summary["imports"])
    )


def _balanced_batches(
    paths: list[str], summaries: dict[str, Summary], jobs: int
) -> list[list[str]]:
    """Batches for ``jobs`` workers, heaviest first: costs vary a hundredfold between files,
    and path-ordered batches left one worker busy for seconds after the other was done."""
    ordered = sorted(paths, key=lambda path: -_cost(summaries.get(path)))
    size = max(10, min(BATCH, len(paths) // (jobs * 8)))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def resolve_all(
    paths: list[str], state: ResolveState, jobs: int, progress: Progress | None
) -> tuple[int, int, int]:
    """Resolve and write ``paths`` in batches: in-process, or with ``jobs`` forked workers
    (each keeps its resolver caches across the batches it takes). Returns (entities,
    edges, files recorded as failed)."""
    global _STATE
    totals = [0, 0, 0]
    done = 0
    if jobs <= 1 or len(paths) < RESOLVE_INLINE_LIMIT or not can_fork():
        batches = [paths[i : i + BATCH] for i in range(0, len(paths), BATCH)]
        for batch in batches:
            for i, count in enumerate(resolve_batch(batch, state)):
                totals[i] += count
            done += len(batch)
            if progress:
                progress("resolve", done, len(paths))
        return totals[0], totals[1], totals[2]
    batches = _balanced_batches(paths, state.summaries, jobs)
    # The call-site index, built once here: every worker shares it (copy-on-write).
    sites = SiteIndex(state.all_paths, state.summaries, state.stored_sites, state.parsed)
    sites.files("")
    _STATE = ResolveState(state.db_url, state.all_paths, state.summaries, state.fresh, sites=sites)
    gc.freeze()  # forked workers never scan (nor copy-on-write touch) the parent's heap
    trim_heap()
    try:
        with new_pool(jobs) as pool:
            futures = [(len(batch), pool.submit(resolve_batch, batch)) for batch in batches]
            for size, future in futures:
                for i, count in enumerate(future.result()):
                    totals[i] += count
                done += size
                if progress:
                    progress("resolve", done, len(paths))
    finally:
        _STATE = None
        gc.unfreeze()
    return totals[0], totals[1], totals[2]
