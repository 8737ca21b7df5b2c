"""Code graph tables (seed 004): ``graph_entities`` and ``graph_relationships``.

``graph_files`` is added for incremental parsing: one row per parsed file with its content
hash, what its resolution read in other files (``deps``; and in columns of their own the
small lists every edit reads: ``missing`` imports, call-site keys ``pulled`` and its own
``sites``) and a ``stale`` flag for files whose edges must be recomputed;
``graph_summaries`` holds its parse summary (so a file can be re-resolved without
re-parsing it, and a new version compared with it name by name). Entity ids are stable:
``<repo-relative path>::<qualified name>``; a file's own entity id is its path.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from kgraph.db.models.base import Base, UTCDateTime, utcnow


class GraphFile(Base):
    __tablename__ = "graph_files"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    language: Mapped[str] = mapped_column(String(16))
    content_hash: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer, default=0)
    parse_errors: Mapped[int] = mapped_column(Integer, default=0)
    parsed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # What the file's last resolution read: {"files": {path: [top-level names]}}; NULL
    # until the file is resolved after its parse, as are the three lists below.
    deps: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    stale: Mapped[bool] = mapped_column(default=False)
    # Small lists an edit reads of every file, in columns of their own (in ``deps`` each
    # read parsed all of it): import keys that matched no file, the call-site keys whose
    # sites the resolution read, and the keys this file's call sites are indexed under.
    missing: Mapped[list[str] | None] = mapped_column(JSON)
    pulled: Mapped[list[str] | None] = mapped_column(JSON)
    sites: Mapped[list[str] | None] = mapped_column(JSON)


class GraphSummary(Base):
    """A file's parse summary, in a table of its own (migration 0005): in the file's row,
    every write of its resolution (``deps``) rewrote the summary's pages too, and every read
    of another column past it walked them."""

    __tablename__ = "graph_summaries"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    # kgraph.codegraph.summary_codec.encode_summary's text: JSON, then its scopes' JSON texts.
    summary: Mapped[str] = mapped_column(Text)


class GraphEntity(Base):
    __tablename__ = "graph_entities"

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    # file|module|class|function|method|interface|type|variable
    type: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(Text)
    qualified_name: Mapped[str] = mapped_column(Text)
    file_path: Mapped[str] = mapped_column(Text)
    line_number: Mapped[int | None] = mapped_column(Integer)
    end_line: Mapped[int | None] = mapped_column(Integer)
    exported: Mapped[bool] = mapped_column(default=False)
    package: Mapped[str | None] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSON)

    __table_args__ = (
        Index(None, "name"),
        Index(None, "qualified_name"),
        Index(None, "file_path"),
    )


class GraphRelationship(Base):
    __tablename__ = "graph_relationships"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_entity: Mapped[str] = mapped_column(Text)
    # No foreign key: an unresolved call points at a name-only candidate id.
    to_entity: Mapped[str] = mapped_column(Text)
    # calls|imports|exports|extends|implements|defines
    type: Mapped[str] = mapped_column(String(16))
    # The file whose parse produced this edge; deleting/re-parsing a file drops its edges.
    file_path: Mapped[str] = mapped_column(Text)
    # The file holding the target (NULL for builtins, external modules, name-only candidates):
    # file-level blast radius walks this column.
    to_file: Mapped[str | None] = mapped_column(Text)
    line_number: Mapped[int | None] = mapped_column(Integer)
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    # How the target was resolved: local|import|self|mro|super-mro|constructor|class|
    # inferred|builtin|external|name-only (see kgraph/codegraph/resolve.py, scoping.py,
    # imports.py, hierarchy.py and build.py); queries add "override" (dispatch.py there).
    resolution: Mapped[str | None] = mapped_column(String(32))
    metadata_: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSON)

    # No unique (from_entity, to_entity, type) constraint: a file's edges are unique by
    # construction (FileRows keys them so) and replaced whole, and that index cost more than
    # a third of a cold parse's inserts and a quarter of the table's size on disk.
    __table_args__ = (
        # Covering: callers and blast radius read edges by target from the index alone.
        Index(
            "ix_graph_relationships_callers",
            "to_entity",
            "type",
            "from_entity",
            "line_number",
            "confidence",
            "resolution",
        ),
        Index(None, "file_path"),
        # Only edges into the repository have a target file; the rest need no entry.
        Index(
            None,
            "to_file",
            sqlite_where=text("to_file IS NOT NULL"),
            postgresql_where=text("to_file IS NOT NULL"),
        ),
    )
