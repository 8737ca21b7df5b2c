"""leaner code graph edge indexes

The unique (from_entity, to_entity, type) constraint goes: a file's edges are unique by
construction and replaced whole, and its index was a quarter of the edges' size on disk and
more than a third of a cold parse's insert time. The to_file index becomes partial: only
edges into the repository have a target file (sqlalchemy's graph: 148 -> 121 MB).

SQLite cannot drop a constraint in place: batch mode copies the table (1.6 s for sqlalchemy's
182,000 edges; the backup kgraph takes before upgrading keeps the old file). The pages the
old table and index held stay in the file as free pages, which later writes reuse.
PostgreSQL drops the constraint in place.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNIQUE = "uq_graph_relationships_from_entity_to_entity_type"
TO_FILE = "ix_graph_relationships_to_file"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("graph_relationships", recreate="always") as batch_op:
            batch_op.drop_constraint(UNIQUE, type_="unique")
    else:
        op.drop_constraint(UNIQUE, "graph_relationships", type_="unique")
    # IF EXISTS / IF NOT EXISTS: a cold parse interrupted before it rebuilt its lookup
    # indexes leaves them missing (kgraph rebuilds them on the next parse).
    op.drop_index(TO_FILE, table_name="graph_relationships", if_exists=True)
    op.create_index(
        TO_FILE,
        "graph_relationships",
        ["to_file"],
        unique=False,
        if_not_exists=True,
        sqlite_where=sa.text("to_file IS NOT NULL"),
        postgresql_where=sa.text("to_file IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index(TO_FILE, table_name="graph_relationships", if_exists=True)
    op.create_index(TO_FILE, "graph_relationships", ["to_file"], unique=False, if_not_exists=True)
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("graph_relationships", recreate="always") as batch_op:
            batch_op.create_unique_constraint(UNIQUE, ["from_entity", "to_entity", "type"])
    else:
        op.create_unique_constraint(
            UNIQUE, "graph_relationships", ["from_entity", "to_entity", "type"]
        )
