"""parse summaries in a table of their own; call-site keys in a column

A file's parse summary (sqlalchemy: 27 MB over 696 files) sat in its ``graph_files`` row,
before ``deps`` and ``stale``. SQLite stores a row as one record, so writing a file's
resolution (``deps``, ``stale``) rewrote its summary's overflow pages too (a fifth of a
second of write locks on a cold parse of sqlalchemy), and reading ``deps`` or ``stale`` of
every file walked all of them. The summaries move to ``graph_summaries``; the small lists
every edit reads of every file (``missing`` imports, ``pulled`` and own call-site keys,
``sites``) move out of ``deps`` into columns of their own (reading them no longer parses
every file's ``deps``, 3.2 MB of JSON for sqlalchemy).

Existing rows keep their summaries and deps, so the next parse stays incremental. New
summaries are stored as kgraph.codegraph.summary.encode_summary's text (JSON, then each
scope's own JSON text), in a text column; the plain JSON stored before still decodes.
SQLite: dropping the column copies ``graph_files`` (batch mode); PostgreSQL drops it in
place.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26 01:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# The lists every edit reads of every file, out of deps into columns of their own.
LISTS = ("missing", "pulled", "sites")


def upgrade() -> None:
    op.create_table(
        "graph_summaries",
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("path", name=op.f("pk_graph_summaries")),
    )
    op.execute(
        "INSERT INTO graph_summaries (path, summary) "
        "SELECT path, CAST(summary AS TEXT) FROM graph_files "
        "WHERE summary IS NOT NULL AND CAST(summary AS TEXT) != 'null'"
    )
    for name in LISTS:
        op.add_column("graph_files", sa.Column(name, sa.JSON(), nullable=True))
    # Only in resolved files' deps ("missing" is in all of them; "pulled" and "sites" only
    # when not empty); the rest stay NULL: not resolved since their parse, as before.
    if op.get_bind().dialect.name == "sqlite":
        lists = ", ".join(f"{n} = coalesce(json_extract(deps, '$.{n}'), '[]')" for n in LISTS)
        op.execute(
            f"UPDATE graph_files SET {lists}, "
            "deps = json_remove(deps, '$.missing', '$.pulled', '$.sites') "
            "WHERE json_extract(deps, '$.missing') IS NOT NULL"
        )
        with op.batch_alter_table("graph_files", recreate="always") as batch_op:
            batch_op.drop_column("summary")
    else:
        lists = ", ".join(f"{n} = coalesce(deps -> '{n}', '[]'::json)" for n in LISTS)
        op.execute(
            f"UPDATE graph_files SET {lists}, "
            "deps = (deps::jsonb - 'missing' - 'pulled' - 'sites')::json "
            "WHERE deps -> 'missing' IS NOT NULL"
        )
        op.drop_column("graph_files", "summary")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("graph_files", sa.Column("summary", sa.JSON(), nullable=True))
    # Summaries still in the plain JSON stored before go back; those in the newer form
    # (JSON, a newline, the scopes' texts) cannot, and their files get an empty content
    # hash: the next parse parses them again.
    op.execute(
        sa.text(
            "UPDATE graph_files SET summary = (SELECT "
            + ("summary" if sqlite else "CAST(summary AS JSON)")
            + " FROM graph_summaries WHERE graph_summaries.path = graph_files.path"
            " AND summary NOT LIKE :newline)"
        ).bindparams(newline="%\n%")
    )
    op.execute("UPDATE graph_files SET content_hash = '' WHERE summary IS NULL")
    if sqlite:
        op.execute(
            "UPDATE graph_files SET deps = json_set(deps, '$.missing', json(missing), "
            "'$.pulled', json(pulled), '$.sites', json(sites)) WHERE missing IS NOT NULL"
        )
        with op.batch_alter_table("graph_files", recreate="always") as batch_op:
            for name in LISTS:
                batch_op.drop_column(name)
    else:
        op.execute(
            "UPDATE graph_files SET deps = (deps::jsonb || jsonb_build_object("
            "'missing', missing::jsonb, 'pulled', pulled::jsonb, 'sites', sites::jsonb))::json "
            "WHERE missing IS NOT NULL"
        )
        for name in LISTS:
            op.drop_column("graph_files", name)
    op.drop_table("graph_summaries")
