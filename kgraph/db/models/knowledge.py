"""Knowledge graph tables (seed 004): ``entities`` and ``relationships``.

Seed 004 keeps entity-specific fields in a JSON ``data`` column; the fields every query
filters or ranks on are real columns here. Full-text search uses the FTS5 table
``entities_fts``, created by hand in the migration (see kgraph/db/fts.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from kgraph.db.models.base import Base, UTCDateTime, utcnow


class Entity(Base):
    __tablename__ = "entities"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    type: Mapped[str] = mapped_column(String(16))
    # The knowledge text; for a CodeArea its name, for a File its repo-relative path.
    content: Mapped[str] = mapped_column(Text)
    # sha256 of the normalised content: the same content of one type is stored once.
    content_hash: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    confidence: Mapped[float] = mapped_column(Float, default=0.5)
    source: Mapped[str] = mapped_column(String(16), default="manual")
    source_ref: Mapped[str | None] = mapped_column(Text)
    issue_number: Mapped[int | None] = mapped_column(Integer)
    session_id: Mapped[str | None] = mapped_column(String(64))
    seen_count: Mapped[int] = mapped_column(Integer, default=1)
    # Set by `knowledge forget`: hidden from search/context, kept in the database and exports.
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_model: Mapped[str | None] = mapped_column(String(128))
    embedding_dim: Mapped[int | None] = mapped_column(Integer)
    # content_hash the vector was computed from, so a changed text is re-embedded.
    embedding_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        UniqueConstraint("type", "content_hash"),
        Index(None, "type", "hidden_at"),
        # The project rules: items of a type seen more than once (migration 0006).
        Index(None, "type", "seen_count"),
        Index(None, "issue_number"),
        Index(None, "session_id"),
        Index(None, "embedding_model"),
        Index(None, "source", "source_ref"),
    )


class Relationship(Base):
    __tablename__ = "relationships"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_id: Mapped[str] = mapped_column(ForeignKey("entities.id", ondelete="CASCADE"))
    to_id: Mapped[str] = mapped_column(ForeignKey("entities.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        UniqueConstraint("from_id", "to_id", "type"),
        Index(None, "to_id", "type"),
    )


class VectorEpoch(Base):
    """One row whose ``epoch`` SQLite triggers move whenever the stored vectors may have
    changed (migration 0004): a process caching the vector matrix reads it instead of
    re-reading every vector's hash after another process commits."""

    __tablename__ = "vector_epoch"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    epoch: Mapped[int] = mapped_column(Integer)
