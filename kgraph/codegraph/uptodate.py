"""Whether a parse would change nothing, found without parsing: the report of a no-change
``graph parse``, from the listing (:mod:`.listing`, git's index in a git work tree) and
the ``graph_files`` rows, on a DB-API connection.

``kgraph graph parse`` after an edit-free moment is the common case (a skill or a hook
runs it to be sure the graph is fresh), and the full pipeline imports SQLAlchemy, the
parsers and the resolver before it knows there is nothing to do: most of the time of a
no-change run (issue 36). This module imports none of them; when it cannot tell (a file
added, changed or deleted, a stale file, a lookup index missing, another parse running)
it says so and the caller runs :func:`~kgraph.codegraph.indexer.parse_repository`,
which does the same comparisons before its work. Standard library only.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

from kgraph.codegraph.filedeps import normalise_path
from kgraph.codegraph.listing import Listing, current_hash, list_sources
from kgraph.codegraph.paths import graph_root
from kgraph.codegraph.walk import SourceFile, language_of
from kgraph.db.reader import ReadConnection, is_postgres
from kgraph.errors import InvalidValueError

__all__ = ["LOOKUP_INDEXES", "ParseReport", "ParseTarget", "parse_target", "unchanged_report"]

# The lookup indexes of the graph tables (kgraph.codegraph.store drops them for a bulk
# load; a parse that died before rebuilding them leaves them missing). A test checks
# this list against the models.
LOOKUP_INDEXES = frozenset(
    {
        "ix_graph_entities_file_path",
        "ix_graph_entities_name",
        "ix_graph_entities_qualified_name",
        "ix_graph_relationships_callers",
        "ix_graph_relationships_file_path",
        "ix_graph_relationships_to_file",
    }
)


@dataclass(frozen=True)
class ParseReport:
    root: str
    scanned: int
    added: int
    changed: int
    deleted: int
    unchanged: int
    resolved: int  # files whose edges were recomputed (parsed + dependents)
    files_with_errors: int
    failed: int  # files recorded as failed, with why (``graph summary`` lists them)
    entities: int
    relationships: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line: what was scanned, parsed and written, and how long it took."""
        return (
            f"{self.scanned} files: {self.added} added, {self.changed} changed, "
            f"{self.deleted} deleted, {self.unchanged} unchanged; {self.resolved} resolved "
            f"({self.entities} entities, {self.relationships} relationships written) "
            f"in {self.seconds:.2f}s"
        )


class ParseTarget(NamedTuple):
    """What a parse of ``path`` covers: the folder or file, its root and the graph path of
    it below the root ("" for the root itself)."""

    path: Path
    root: Path
    prefix: str

    def sources(self) -> Listing:
        """The source files it covers (a file: itself, when its language is parsed)."""
        if self.path.is_file():  # asked for by name: parsed wherever it is
            language = language_of(self.path.name)
            files = [SourceFile(self.prefix, self.path, language)] if language else []
            return Listing(files, {}, "file")
        return list_sources(self.root, self.path)


def parse_target(path: Path, root: Path | None = None) -> ParseTarget:
    """``path`` and ``root`` resolved as a parse reads them (``root`` defaults to the graph
    root of ``path``); InvalidValueError for a missing path or one outside the root."""
    path = path.resolve()
    if not path.exists():
        raise InvalidValueError(f"no such file or folder: {path}")
    root = (root or graph_root(path)).resolve()
    try:
        prefix = normalise_path(path.relative_to(root).as_posix())
    except ValueError as exc:
        raise InvalidValueError(f"{path} is not inside the root {root}") from exc
    return ParseTarget(path, root, "" if prefix == "." else prefix)


def missing_indexes(conn: ReadConnection) -> set[str]:
    """The lookup indexes the graph tables lack."""
    if is_postgres(conn):
        sql = (
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename IN ('graph_entities', 'graph_relationships')"
        )
    else:
        sql = (
            "SELECT name FROM sqlite_master WHERE type = 'index' "
            "AND tbl_name IN ('graph_entities', 'graph_relationships')"
        )
    return set(LOOKUP_INDEXES) - {str(name) for (name,) in conn.execute(sql)}


def unchanged_report(
    conn: ReadConnection, target: ParseTarget, started: float | None = None
) -> ParseReport | None:
    """The report of a parse of ``target`` that finds nothing to do, or None when it would
    do something: a file added, changed (its content hash differs from the stored one,
    including one a release before stored) or deleted, a stale file to resolve, a lookup
    index to rebuild. ``started``: ``time.perf_counter()`` when the command began."""
    started = time.perf_counter() if started is None else started
    if missing_indexes(conn):
        return None
    states = {
        str(path): (str(digest), bool(stale))
        for path, digest, stale in conn.execute("SELECT path, content_hash, stale FROM graph_files")
    }
    if any(stale for _digest, stale in states.values()):
        return None
    listing = target.sources()
    seen = {source.path for source in listing.files}
    prefix = target.prefix
    under = (p for p in states if not prefix or p == prefix or p.startswith(prefix + "/"))
    if any(p not in seen for p in under):
        return None  # deleted
    for source in listing.files:
        old = states.get(source.path)
        if old is None:
            return None  # added
        digest = current_hash(listing, source)
        if digest is not None and digest != old[0]:  # unreadable: the parse skips it too
            return None
    count = len(listing.files)
    return ParseReport(
        root=str(target.root),
        scanned=count,
        added=0,
        changed=0,
        deleted=0,
        unchanged=count,
        resolved=0,
        files_with_errors=0,
        failed=0,
        entities=0,
        relationships=0,
        seconds=round(time.perf_counter() - started, 3),
    )
