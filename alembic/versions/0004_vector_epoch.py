"""vector epoch: a counter the triggers move whenever the stored vectors may have changed

A long-lived process (the MCP server) keeps the matrix of item vectors in memory. Before,
any commit by another process (a hook recording what it injected, a graph query log) made
it re-read every vector's (id, hash) to see whether the matrix still held: a full table
scan, 20-30 ms per search at 10,000 items. Now SQLite's own triggers count the writes that
can change the matrix — an item with a vector added, deleted, re-embedded, hidden or
retyped; a SUPERSEDES edge added or removed — and one row says whether anything moved.

PostgreSQL gets the same triggers (row triggers with the same conditions, calling one
PL/pgSQL function that moves the epoch once per transaction); there the epoch is the whole
cache token, read in the same snapshot as the vectors (it has no change counter like
SQLite's data_version).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25 18:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUMP = "BEGIN UPDATE vector_epoch SET epoch = epoch + 1 WHERE id = 1; END"
TRIGGERS = {
    "vector_epoch_entities_ai": "AFTER INSERT ON entities WHEN new.embedding IS NOT NULL",
    "vector_epoch_entities_ad": "AFTER DELETE ON entities WHEN old.embedding IS NOT NULL",
    "vector_epoch_entities_au": (
        "AFTER UPDATE OF embedding, embedding_model, embedding_dim, embedding_hash, "
        "hidden_at, type ON entities "
        "WHEN old.embedding IS NOT NULL OR new.embedding IS NOT NULL"
    ),
    "vector_epoch_supersedes_ai": "AFTER INSERT ON relationships WHEN new.type = 'SUPERSEDES'",
    "vector_epoch_supersedes_ad": "AFTER DELETE ON relationships WHEN old.type = 'SUPERSEDES'",
    "vector_epoch_supersedes_au": (
        "AFTER UPDATE OF type, to_id ON relationships "
        "WHEN old.type = 'SUPERSEDES' OR new.type = 'SUPERSEDES'"
    ),
}


# Once per transaction: updating one row thousands of times in one transaction (a bulk
# import) costs PostgreSQL quadratic time walking that row's versions, and one step per
# commit is all a reader can see anyway. The marker is a transaction-local setting, reset
# at commit and rollback (and with a rolled-back savepoint, as the UPDATE is).
PG_FUNCTION = (
    "CREATE FUNCTION vector_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN "
    "IF current_setting('kgraph.vector_epoch_bumped', true) IS DISTINCT FROM 'on' THEN "
    "UPDATE vector_epoch SET epoch = epoch + 1 WHERE id = 1; "
    "PERFORM set_config('kgraph.vector_epoch_bumped', 'on', true); "
    "END IF; "
    "RETURN NULL; END $$"
)


def _pg_trigger(name: str, when: str) -> str:
    """A SQLite trigger head of TRIGGERS as a PostgreSQL row trigger."""
    timing, _, condition = when.partition(" WHEN ")
    condition = condition.replace("new.", "NEW.").replace("old.", "OLD.")
    return (
        f"CREATE TRIGGER {name} {timing} FOR EACH ROW WHEN ({condition}) "
        "EXECUTE FUNCTION vector_epoch_bump()"
    )


def _table_of(when: str) -> str:
    return when.split(" ON ", 1)[1].split(" ", 1)[0]


def upgrade() -> None:
    op.create_table(
        "vector_epoch",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vector_epoch")),
    )
    op.execute("INSERT INTO vector_epoch (id, epoch) VALUES (1, 0)")
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name, when in TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {when} {BUMP}")
    elif dialect == "postgresql":
        op.execute(PG_FUNCTION)
        for name, when in TRIGGERS.items():
            op.execute(_pg_trigger(name, when))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    elif dialect == "postgresql":
        for name, when in TRIGGERS.items():
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {_table_of(when)}")
        op.execute("DROP FUNCTION IF EXISTS vector_epoch_bump()")
    op.drop_table("vector_epoch")
