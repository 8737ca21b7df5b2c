"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-22 04:06:29.932936
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Migrations are frozen history: the FTS5 DDL is written out here, not imported.
FTS_CREATE = (
    "CREATE VIRTUAL TABLE entities_fts USING fts5("
    "entity_id UNINDEXED, content, tokenize = 'porter unicode61')",
    """CREATE TRIGGER entities_fts_ai AFTER INSERT ON entities BEGIN
        INSERT INTO entities_fts(entity_id, content) VALUES (new.id, new.content);
    END""",
    """CREATE TRIGGER entities_fts_ad AFTER DELETE ON entities BEGIN
        DELETE FROM entities_fts WHERE entity_id = old.id;
    END""",
    """CREATE TRIGGER entities_fts_au AFTER UPDATE OF content ON entities BEGIN
        DELETE FROM entities_fts WHERE entity_id = old.id;
        INSERT INTO entities_fts(entity_id, content) VALUES (new.id, new.content);
    END""",
)
# PostgreSQL: a generated tsvector column with a GIN index instead of the FTS5 table (English
# stemming, like FTS5's porter tokenizer); kept out of the models (kgraph.db.fts).
PG_FTS_CREATE = (
    "ALTER TABLE entities ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED",
    "CREATE INDEX ix_entities_search_vector ON entities USING gin (search_vector)",
)
PG_FTS_DROP = (
    "DROP INDEX IF EXISTS ix_entities_search_vector",
    "ALTER TABLE entities DROP COLUMN IF EXISTS search_vector",
)
FTS_DROP = (
    "DROP TRIGGER IF EXISTS entities_fts_au",
    "DROP TRIGGER IF EXISTS entities_fts_ad",
    "DROP TRIGGER IF EXISTS entities_fts_ai",
    "DROP TABLE IF EXISTS entities_fts",
)


def upgrade() -> None:
    op.create_table(
        "context_metrics",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("issue_number", sa.Integer(), nullable=True),
        sa.Column("files_read", sa.Integer(), nullable=False),
        sa.Column("files_edited", sa.Integer(), nullable=False),
        sa.Column("compacted", sa.Integer(), nullable=False),
        sa.Column("duration_minutes", sa.Integer(), nullable=True),
        sa.Column("review_findings", sa.Text(), nullable=True),
        sa.Column("learnings_injected", sa.Integer(), nullable=False),
        sa.Column("learnings_captured", sa.Integer(), nullable=False),
        sa.Column("uptake", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_context_metrics")),
        sa.UniqueConstraint("session_id", name=op.f("uq_context_metrics_session_id")),
    )
    op.create_table(
        "entities",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("source_ref", sa.Text(), nullable=True),
        sa.Column("issue_number", sa.Integer(), nullable=True),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("seen_count", sa.Integer(), nullable=False),
        sa.Column("hidden_at", sa.DateTime(), nullable=True),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_model", sa.String(length=128), nullable=True),
        sa.Column("embedding_dim", sa.Integer(), nullable=True),
        sa.Column("embedding_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_entities")),
        sa.UniqueConstraint("type", "content_hash", name=op.f("uq_entities_type_content_hash")),
    )
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_entities_embedding_model"), ["embedding_model"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_entities_issue_number"), ["issue_number"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_entities_session_id"), ["session_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_entities_source_source_ref"), ["source", "source_ref"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_entities_type_hidden_at"), ["type", "hidden_at"], unique=False
        )

    op.create_table(
        "graph_entities",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("qualified_name", sa.Text(), nullable=False),
        sa.Column("file_path", sa.Text(), nullable=False),
        sa.Column("line_number", sa.Integer(), nullable=True),
        sa.Column("end_line", sa.Integer(), nullable=True),
        sa.Column("exported", sa.Boolean(), nullable=False),
        sa.Column("package", sa.Text(), nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_entities")),
    )
    with op.batch_alter_table("graph_entities", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_graph_entities_file_path"), ["file_path"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_graph_entities_name"), ["name"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_graph_entities_qualified_name"), ["qualified_name"], unique=False
        )

    op.create_table(
        "graph_files",
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("parse_errors", sa.Integer(), nullable=False),
        sa.Column("parsed_at", sa.DateTime(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("deps", sa.JSON(), nullable=True),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("path", name=op.f("pk_graph_files")),
    )
    op.create_table(
        "graph_queries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("workflow_id", sa.String(length=32), nullable=True),
        sa.Column("query_type", sa.String(length=32), nullable=False),
        sa.Column("query_params", sa.JSON(), nullable=True),
        sa.Column("result_count", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_queries")),
    )
    with op.batch_alter_table("graph_queries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_graph_queries_query_type_created_at"),
            ["query_type", "created_at"],
            unique=False,
        )

    op.create_table(
        "graph_relationships",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("from_entity", sa.Text(), nullable=False),
        sa.Column("to_entity", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("file_path", sa.Text(), nullable=False),
        sa.Column("to_file", sa.Text(), nullable=True),
        sa.Column("line_number", sa.Integer(), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("resolution", sa.String(length=32), nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_relationships")),
        sa.UniqueConstraint(
            "from_entity",
            "to_entity",
            "type",
            name=op.f("uq_graph_relationships_from_entity_to_entity_type"),
        ),
    )
    with op.batch_alter_table("graph_relationships", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_graph_relationships_file_path"), ["file_path"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_graph_relationships_to_entity_type"), ["to_entity", "type"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_graph_relationships_to_file"), ["to_file"], unique=False
        )

    op.create_table(
        "milestones",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("github_milestone_number", sa.Integer(), nullable=True),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_milestones")),
    )
    with op.batch_alter_table("milestones", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_milestones_name"), ["name"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("cwd", sa.Text(), nullable=True),
        sa.Column("transcript_path", sa.Text(), nullable=True),
        sa.Column("branch", sa.Text(), nullable=True),
        sa.Column("issue_number", sa.Integer(), nullable=True),
        sa.Column("head_at_start", sa.String(length=64), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("transcript_offset", sa.Integer(), nullable=False),
        sa.Column("captured_at", sa.DateTime(), nullable=True),
        sa.Column("compaction_summary", sa.Text(), nullable=True),
        sa.Column("injected_ids", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", name=op.f("pk_sessions")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_started_at"), ["started_at"], unique=False)

    op.create_table(
        "workflows",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("issue_number", sa.Integer(), nullable=False),
        sa.Column("branch", sa.Text(), nullable=False),
        sa.Column("worktree", sa.Text(), nullable=True),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("retry_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workflows")),
    )
    with op.batch_alter_table("workflows", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_workflows_branch"), ["branch"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_workflows_issue_number_status"), ["issue_number", "status"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_workflows_status_updated_at"), ["status", "updated_at"], unique=False
        )

    op.create_table(
        "actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workflow_id", sa.String(length=32), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("result", sa.String(length=16), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["workflow_id"],
            ["workflows.id"],
            name=op.f("fk_actions_workflow_id_workflows"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_actions")),
    )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_actions_workflow_id"), ["workflow_id"], unique=False)

    op.create_table(
        "baselines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("milestone_id", sa.String(length=32), nullable=False),
        sa.Column("lint_exit_code", sa.Integer(), nullable=True),
        sa.Column("lint_warnings", sa.Integer(), nullable=True),
        sa.Column("lint_errors", sa.Integer(), nullable=True),
        sa.Column("typecheck_exit_code", sa.Integer(), nullable=True),
        sa.Column("typecheck_errors", sa.Integer(), nullable=True),
        sa.Column("captured_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["milestone_id"],
            ["milestones.id"],
            name=op.f("fk_baselines_milestone_id_milestones"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_baselines")),
    )
    with op.batch_alter_table("baselines", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_baselines_milestone_id"), ["milestone_id"], unique=False
        )

    op.create_table(
        "commits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workflow_id", sa.String(length=32), nullable=False),
        sa.Column("sha", sa.String(length=64), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["workflow_id"],
            ["workflows.id"],
            name=op.f("fk_commits_workflow_id_workflows"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_commits")),
    )
    with op.batch_alter_table("commits", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_commits_workflow_id"), ["workflow_id"], unique=False)

    op.create_table(
        "milestone_workflows",
        sa.Column("milestone_id", sa.String(length=32), nullable=False),
        sa.Column("workflow_id", sa.String(length=32), nullable=False),
        sa.Column("wave_number", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["milestone_id"],
            ["milestones.id"],
            name=op.f("fk_milestone_workflows_milestone_id_milestones"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workflow_id"],
            ["workflows.id"],
            name=op.f("fk_milestone_workflows_workflow_id_workflows"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("milestone_id", "workflow_id", name=op.f("pk_milestone_workflows")),
    )
    with op.batch_alter_table("milestone_workflows", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_milestone_workflows_workflow_id"), ["workflow_id"], unique=False
        )

    op.create_table(
        "relationships",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("from_id", sa.String(length=40), nullable=False),
        sa.Column("to_id", sa.String(length=40), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["from_id"],
            ["entities.id"],
            name=op.f("fk_relationships_from_id_entities"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_id"],
            ["entities.id"],
            name=op.f("fk_relationships_to_id_entities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_relationships")),
        sa.UniqueConstraint(
            "from_id", "to_id", "type", name=op.f("uq_relationships_from_id_to_id_type")
        ),
    )
    with op.batch_alter_table("relationships", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_relationships_to_id_type"), ["to_id", "type"], unique=False
        )

    # Full-text search over entities (not modelled: a virtual table and triggers).
    is_sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in FTS_CREATE if is_sqlite else PG_FTS_CREATE:
        op.execute(statement)


def downgrade() -> None:
    is_sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in FTS_DROP if is_sqlite else PG_FTS_DROP:
        op.execute(statement)

    with op.batch_alter_table("relationships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_relationships_to_id_type"))

    op.drop_table("relationships")
    with op.batch_alter_table("milestone_workflows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_milestone_workflows_workflow_id"))

    op.drop_table("milestone_workflows")
    with op.batch_alter_table("commits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_commits_workflow_id"))

    op.drop_table("commits")
    with op.batch_alter_table("baselines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_baselines_milestone_id"))

    op.drop_table("baselines")
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_actions_workflow_id"))

    op.drop_table("actions")
    with op.batch_alter_table("workflows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_workflows_status_updated_at"))
        batch_op.drop_index(batch_op.f("ix_workflows_issue_number_status"))
        batch_op.drop_index(batch_op.f("ix_workflows_branch"))

    op.drop_table("workflows")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_started_at"))

    op.drop_table("sessions")
    with op.batch_alter_table("milestones", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_milestones_name"))

    op.drop_table("milestones")
    with op.batch_alter_table("graph_relationships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_graph_relationships_to_file"))
        batch_op.drop_index(batch_op.f("ix_graph_relationships_to_entity_type"))
        batch_op.drop_index(batch_op.f("ix_graph_relationships_file_path"))

    op.drop_table("graph_relationships")
    with op.batch_alter_table("graph_queries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_graph_queries_query_type_created_at"))

    op.drop_table("graph_queries")
    op.drop_table("graph_files")
    with op.batch_alter_table("graph_entities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_graph_entities_qualified_name"))
        batch_op.drop_index(batch_op.f("ix_graph_entities_name"))
        batch_op.drop_index(batch_op.f("ix_graph_entities_file_path"))

    op.drop_table("graph_entities")
    with op.batch_alter_table("entities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entities_type_hidden_at"))
        batch_op.drop_index(batch_op.f("ix_entities_source_source_ref"))
        batch_op.drop_index(batch_op.f("ix_entities_session_id"))
        batch_op.drop_index(batch_op.f("ix_entities_issue_number"))
        batch_op.drop_index(batch_op.f("ix_entities_embedding_model"))

    op.drop_table("entities")
    op.drop_table("context_metrics")
