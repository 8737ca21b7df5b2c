"""index the items seen more than once, for the project's rules

Every briefing lists the project's rules: Patterns and Mistakes stored more than once
(``seen_count >= 2``). Through the (type, hidden_at) index that read every Pattern and
Mistake to find the few seen twice: 20 ms of each session start at 100,000 items. An
index on (type, seen_count) reads only those.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28 11:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_entities_type_seen_count"


def upgrade() -> None:
    op.create_index(INDEX, "entities", ["type", "seen_count"], unique=False, if_not_exists=True)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="entities", if_exists=True)
