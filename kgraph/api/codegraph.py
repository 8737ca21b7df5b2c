"""``kg.graph``: the code graph queries bound to a project (its database and root).

Names are a name (``save``), a qualified name (``Repo.save``), a dotted path or an id
(``app/repo.py::Repo.save``); an ambiguous one raises AmbiguousNameError listing the
candidates. File arguments may be absolute or relative to the working directory: they are
made repo-relative, as stored. Queries are recorded in ``graph_queries`` (usage metrics)
unless ``record=False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kgraph import codegraph
from kgraph.codegraph import (
    BlastRadius,
    CallerRecord,
    EntityRecord,
    FileDependent,
    ParseReport,
)

if TYPE_CHECKING:
    from kgraph.api.project import Project
    from kgraph.db import Database


class Export(NamedTuple):
    """One thing a file exports: ``kind`` "defined" or "re-export"; ``entity`` is None for
    a re-export whose target is not in the graph (then only ``id`` is known)."""

    kind: str
    id: str
    entity: EntityRecord | None


def _export(row: dict[str, Any]) -> Export:
    entity = row["entity"]
    fields = {k: entity.get(k) for k in EntityRecord._fields}
    record = EntityRecord(**fields) if entity.get("name") is not None else None
    return Export(str(row["kind"]), str(entity["id"]), record)


class CodeGraph:
    """The parsed code graph of ``project`` (empty until :meth:`parse` runs)."""

    def __init__(self, project: Project) -> None:
        self._project = project

    @property
    def db(self) -> Database:
        return self._project.db  # the current one: refresh() may have reopened it

    @property
    def available(self) -> bool:
        """True when any file has been parsed (cached until the data changes)."""
        return bool(self._project._cached(("has_graph",), lambda: codegraph.has_graph(self.db)))

    def parse(
        self, path: str | Path | None = None, *, force: bool = False, jobs: int | None = None
    ) -> ParseReport:
        """Parse ``path`` (default: the project root); only changed files are re-parsed."""
        target = Path(path) if path is not None else self._project.root
        return codegraph.parse_repository(
            self.db, target, root=self._project.root, jobs=jobs, force=force
        )

    def what_calls(
        self, name: str, *, include_unresolved: bool = False, record: bool = True
    ) -> tuple[EntityRecord, list[CallerRecord]]:
        """The target ``name`` resolves to and its direct callers."""
        return codegraph.what_calls(
            self.db, name, include_unresolved=include_unresolved, record=record
        )

    def blast_radius(
        self, name: str, *, depth: int = 3, include_unresolved: bool = False, record: bool = True
    ) -> BlastRadius:
        """Everything that depends on ``name`` up to ``depth`` edges back, by file."""
        return codegraph.blast_radius(
            self.db, name, depth=depth, include_unresolved=include_unresolved, record=record
        )

    def find(
        self, name: str, *, limit: int = 20, exact: bool = False, record: bool = False
    ) -> list[EntityRecord]:
        """Entities named like ``name``: exact, else prefix, substring, fuzzy (or exact only)."""
        return codegraph.find_entities(self.db, name, limit=limit, record=record, exact=exact)[1]

    def exports(self, file: str, *, record: bool = True) -> list[Export]:
        """What ``file`` exports: its definitions and re-exports."""
        rows = codegraph.exports(self.db, self._project.relative(file), record=record)
        return [_export(r) for r in rows]

    def depends_on(self, file: str, *, depth: int = 1, record: bool = True) -> list[FileDependent]:
        """The files that depend on ``file`` (up to ``depth`` levels), with the direct edges."""
        return codegraph.what_depends_on(
            self.db, self._project.relative(file), depth=depth, record=record
        )

    def dependent_files(self, files: Sequence[str], *, depth: int = 2) -> dict[str, int]:
        """Repo-relative files depending on any of ``files`` -> the nearest depth."""
        return codegraph.files_in_blast_radius(
            self.db, [self._project.relative(f) for f in files], depth=depth
        )

    def summary(self, *, record: bool = True) -> dict[str, Any]:
        """Counts of files, entities, edges and how calls were resolved."""
        return codegraph.graph_summary(self.db, record=record)
