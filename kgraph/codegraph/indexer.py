"""``parse_repository``: bring the code graph of a folder up to date, incrementally.

1. List the folder's source files (``.gitignore`` honoured) with their content hashes:
   in a git work tree from git's index, reading only untracked and modified files; else
   walked, every file read and hashed (:mod:`.listing`).
2. Parse new and changed files to summaries (worker processes with ``jobs`` > 1).
3. Store the summaries (one transaction), drop deleted files, and mark *stale* every file
   whose resolution read a name that changed in a modified file (its new summary compared
   with the stored one, name by name), or anything of a deleted file — importers, subclasses,
   re-exporters — plus files whose missing imports a new file may satisfy.
4. Resolve the parsed and stale files against all summaries (unchanged files' summaries
   come from the database, not from re-parsing) and replace their entities and edges in
   batches of short transactions. A run interrupted after step 3 leaves files stale, and
   the next run finishes them. A file whose parse or resolution fails is recorded as
   failed, with why (:func:`~kgraph.codegraph.build.resolve_file`), and the others are
   built all the same: one file's bug used to abort the whole run.

Runs on one database are serialised (a lock file next to it). A cold parse (empty graph
tables) loads rows without the lookup indexes and builds them once at the end; a run
that died before that rebuilds them when it next starts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection

from kgraph.codegraph import store
from kgraph.codegraph.changes import changed_names, changed_sites, depends_on
from kgraph.codegraph.gcpause import no_gc
from kgraph.codegraph.listing import Listing, current_hash, legacy_hash
from kgraph.codegraph.modules import file_keys
from kgraph.codegraph.summary import Summary
from kgraph.codegraph.summary_codec import decode_summary
from kgraph.codegraph.uptodate import ParseReport, ParseTarget, parse_target
from kgraph.codegraph.workers import Progress, ResolveState, parse_all, resolve_all
from kgraph.db import Database
from kgraph.db.locks import Holder
from kgraph.db.models import utcnow

__all__ = ["ParseReport", "default_jobs", "parse_repository"]

# Resolving at least this many files into empty graph tables is a bulk load: the lookup
# indexes are dropped first and built once at the end (cold sqlalchemy: 2.3 -> 1.2 s of
# inserts, and shorter write locks for the resolve workers).
BULK_LOAD_MIN_FILES = 150
# Resolving at least this many files loads every summary up front (most are read anyway).
LOAD_ALL_MIN_FILES = 150


def default_jobs() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def parse_repository(
    db: Database,
    path: Path,
    *,
    root: Path | None = None,
    jobs: int | None = None,
    force: bool = False,
    progress: Progress | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> ParseReport:
    """Parse ``path`` (a folder or file) into the code graph; paths are relative to ``root``.

    ``root`` defaults to the graph root of ``path`` (:func:`~kgraph.codegraph.paths.graph_root`:
    its git root; outside git, the current folder when it holds ``path``). Only new
    and changed files are parsed (``force`` re-parses everything under ``path``); files
    under ``path`` that disappeared are removed. Raises InvalidValueError for a missing path
    or one outside ``root``. When another parse of the database runs, ``on_wait`` gets a
    line saying which process this one waits for.
    """
    started = time.perf_counter()

    def waiting(holder: Holder | None) -> None:
        if on_wait:
            who = holder.describe() if holder is not None else "a process that did not say"
            on_wait(f"Waiting for another graph parse of this database ({who})")
        if progress:
            progress("wait", 0, 0)

    with db.exclusive("graph", on_wait=waiting):
        return _parse_repository(db, parse_target(path, root), jobs, force, progress, started)


def _to_parse(
    listing: Listing, states: dict[str, tuple[str, bool]], force: bool
) -> tuple[list[tuple[str, str, str]], dict[str, str]]:
    """The files to parse (path, absolute path, language): new ones, and those whose
    content hash differs from the stored one; and the unchanged files whose stored hash is
    a release before's (:func:`~.listing.legacy_hash`) -> their hash now, to store."""
    to_parse: list[tuple[str, str, str]] = []
    rehashed: dict[str, str] = {}
    for source in listing.files:
        old = states.get(source.path)
        if old is not None and not force:
            digest = current_hash(listing, source)
            if digest is None or digest == old[0]:  # unreadable: skipped, as always
                continue
            try:
                if legacy_hash(source.absolute.read_bytes()) == old[0]:
                    rehashed[source.path] = digest
                    continue
            except OSError:
                continue
        to_parse.append((source.path, str(source.absolute), source.language))
    return to_parse, rehashed


def _parse_repository(
    db: Database,
    target: ParseTarget,
    jobs: int | None,
    force: bool,
    progress: Progress | None,
    started: float,
) -> ParseReport:
    root, prefix = target.root, target.prefix
    listing = target.sources()
    files = listing.files

    if db.read(store.missing_lookup_indexes):  # read first: most runs need no write lock
        db.write(store.ensure_lookup_indexes)
    states = db.read(store.file_states)
    under = [p for p in states if not prefix or p == prefix or p.startswith(prefix + "/")]
    seen = {f.path for f in files}
    deleted = sorted(p for p in under if p not in seen)
    to_parse, rehashed = _to_parse(listing, states, force)

    parsed_rows: list[dict[str, Any]] = []
    summaries: dict[str, Summary] = {}
    changed: set[str] = set()
    added: list[str] = []
    jobs = default_jobs() if jobs is None else max(1, jobs)
    # One pause for the whole pipeline: between phases the decoded summaries (millions of
    # small objects) are alive, and every collection would re-scan all of them.
    with no_gc():
        # Decoded as they arrive: the main process works while the workers parse.
        for parsed in parse_all(to_parse, jobs, progress):
            summaries[parsed.path] = decode_summary(parsed.summary_json)
            old = states.get(parsed.path)
            if old is None:
                added.append(parsed.path)
            else:
                changed.add(parsed.path)
            parsed_rows.append(
                {
                    "path": parsed.path,
                    "language": parsed.language,
                    # git's id of the content when it vouches for it (the same unless a
                    # filter, e.g. line endings, makes the work-tree copy differ)
                    "content_hash": listing.known.get(parsed.path, parsed.digest),
                    "size": parsed.size,
                    "parse_errors": parsed.errors,
                    "summary": parsed.summary_json,
                    "deps": None,
                }
            )

        dependents, all_deps = _dependents(db, summaries, changed, deleted, added)
        stale = {p for p, (_c, is_stale) in states.items() if is_stale}
        to_resolve = sorted((set(summaries) | dependents | stale) - set(deleted))
        # What the files to resolve read when last resolved (read before the parsed files'
        # rows are replaced): their summaries are loaded in one query.
        last_deps = None
        if 0 < len(to_resolve) < LOAD_ALL_MIN_FILES:
            last_deps = db.read(lambda c: store.deps_of(c, to_resolve))

        def write_parsed(conn: Connection) -> None:
            store.delete_files(conn, deleted)
            store.save_parsed(conn, parsed_rows, utcnow())
            store.mark_stale(conn, sorted(dependents - set(summaries) - set(deleted)))
            store.set_hashes(conn, rehashed)

        if parsed_rows or deleted or dependents or rehashed:
            db.write(write_parsed)

        parsed_count = len(summaries)
        files_with_errors = sum(1 for row in parsed_rows if row["parse_errors"])
        entity_count, edge_count, failed = _resolve(
            db, states, summaries, deleted, to_resolve, jobs, progress, all_deps, last_deps
        )
    return ParseReport(
        root=str(root),
        scanned=len(files),
        added=len(added),
        changed=parsed_count - len(added),
        deleted=len(deleted),
        unchanged=len(files) - parsed_count,
        resolved=len(to_resolve),
        files_with_errors=files_with_errors,
        failed=failed,
        entities=entity_count,
        relationships=edge_count,
        seconds=round(time.perf_counter() - started, 3),
    )


def _dependents(
    db: Database,
    summaries: dict[str, Summary],
    modified: set[str],
    deleted: list[str],
    added: list[str],
) -> tuple[set[str], dict[str, dict[str, Any]] | None]:
    """Files to re-resolve because of what changed elsewhere: those that read a name whose
    observable part changed (the new summary of a modified file is compared with its stored
    one, name by name), or anything of a deleted file; those with a missing import an
    added file may satisfy; and those that read the call sites of a key (to bind a
    function's parameters) whose call sites changed anywhere. Also every file's stored
    deps as far as they were read (:func:`~kgraph.codegraph.store.deps_on`; None when none
    had to be)."""
    changed: dict[str, set[str] | None] = {path: None for path in deleted}
    old: dict[str, Summary] = {}
    if modified or deleted:
        old = db.read(lambda c: store.load_summaries(c, sorted(modified | set(deleted))))
        for path in modified:
            previous = old.get(path)
            names = changed_names(previous, summaries[path]) if previous is not None else {"*"}
            if names:
                changed[path] = names
    sites: set[str] = set()  # call-site keys whose sites changed (deleted: see `changed`)
    for path in modified:
        sites |= changed_sites(old.get(path), summaries[path])
    if not (changed or added or sites):
        return set(), None
    all_deps = db.read(lambda c: store.deps_on(c, sorted(changed)))
    if added and any(deps["pulled"] for deps in all_deps.values()):
        for path in added:  # new call sites (a cold parse has no one to tell)
            sites |= changed_sites(None, summaries[path])
    new_keys = {key for path in added for key in file_keys(path)}
    found: set[str] = set()
    for file_path, deps in all_deps.items():
        files: dict[str, list[str]] = deps["files"]
        if (
            any(path in files and depends_on(files[path], names) for path, names in changed.items())
            or new_keys.intersection(deps["missing"])
            or sites.intersection(deps["pulled"])
        ):
            found.add(file_path)
    return found, all_deps


def _resolve(
    db: Database,
    states: dict[str, Any],
    summaries: dict[str, Summary],
    deleted: list[str],
    to_resolve: list[str],
    jobs: int,
    progress: Progress | None,
    all_deps: dict[str, dict[str, Any]] | None = None,
    last_deps: dict[str, dict[str, Any]] | None = None,
) -> tuple[int, int, int]:
    """Resolve ``to_resolve`` and write their rows; returns (entities, edges) written and
    the files recorded as failed (a failure is kept to its file: the others are built).
    A bulk load empties ``summaries`` when it is done with them. ``all_deps``: every
    file's stored deps, when the caller read them (before this run's writes);
    ``last_deps``: at least those of ``to_resolve``, likewise."""
    if not to_resolve:
        return 0, 0, 0
    all_paths = (set(states) - set(deleted)) | set(summaries)
    if len(to_resolve) >= LOAD_ALL_MIN_FILES:  # a big run reads most summaries anyway
        wanted = {p for p in all_paths if p not in summaries}
    else:  # and the files they read when last resolved: one query, not one a file
        wanted = {p for p in to_resolve if p not in summaries}
        for path in to_resolve:
            wanted.update(((last_deps or {}).get(path) or {}).get("files") or ())
        wanted = {p for p in wanted if p in all_paths and p not in summaries}
    loaded: dict[str, Summary] = {
        **db.read(lambda c: store.load_summaries(c, sorted(wanted))),
        **summaries,
    }
    fresh = len(to_resolve) >= BULK_LOAD_MIN_FILES and db.read(store.graph_is_empty)

    def stored_sites() -> dict[str, list[str]]:
        # The deps read before this run's writes (the files parsed in it are not asked).
        if all_deps is not None:
            return {path: deps["sites"] for path, deps in all_deps.items()}
        return db.read(store.site_keys)

    state = ResolveState(
        db.url,
        all_paths,
        loaded,
        fresh,
        writer=lambda batch: store.write_rows(db, batch, fresh),
        loader=lambda path: db.read(lambda c: store.load_summaries(c, [path])).get(path),
        stored_sites=stored_sites,
        parsed=set(summaries),
    )
    if not fresh:
        return resolve_all(to_resolve, state, jobs, progress)
    db.write(store.drop_lookup_indexes)
    try:
        return resolve_all(to_resolve, state, jobs, progress)
    finally:
        # The summaries are done with (``summaries`` is emptied too). Freeing them takes
        # ~0.1 s for sqlalchemy's: a thread does it while SQLite, which releases the GIL,
        # builds the indexes.
        freeing = threading.Thread(target=_empty, args=(loaded, summaries))
        freeing.start()
        try:
            db.write(store.ensure_lookup_indexes)
            db.write(store.refresh_statistics)
        finally:
            freeing.join()


def _empty(*mappings: dict[str, Summary]) -> None:
    for mapping in mappings:
        while mapping:  # an item at a time: the GIL changes hands in between
            mapping.popitem()
