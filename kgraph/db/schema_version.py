"""The Alembic head revision this kgraph expects.

Kept as a constant so that opening an up-to-date database never imports Alembic (~0.8 s).
A test checks it equals the head of the shipped migrations.
"""

HEAD_REVISION = "0006"

# Every revision this kgraph can upgrade from (a test checks them against the migrations):
# a database at any other revision was written by a newer kgraph, which is refused before
# anything is copied or changed.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006")
# The oldest revision the read paths (hooks, one-off graph queries) use as it is: every
# later one only added an index, so after an upgrade the hooks keep reading the database
# until the worker migrates it, instead of saying nothing for a session.
READABLE_FROM = "0005"
# Tables every revision has: a file holding one of them but no version is a kgraph database
# of unknown layout (a pre-release, or a damaged version table), never adopted.
CORE_TABLES = ("workflows", "entities", "relationships", "graph_entities")


def too_new_message(where: str, revision: str) -> str:
    """What to say of a database a newer kgraph wrote: no process of this one will ever
    read or migrate it, so the hooks must say so rather than inject nothing."""
    return (
        f"database {where} is at schema {revision}, newer than this kgraph "
        f"({HEAD_REVISION}); upgrade kgraph"
    )


def check_revision(where: str, revision: str | None) -> bool:
    """True when a reader can use a database at ``revision`` (this kgraph's schema, or one
    from READABLE_FROM on); False for an older or missing one (the worker migrates it);
    SchemaTooNewError for a newer."""
    if revision is not None and revision not in KNOWN_REVISIONS:
        from kgraph.errors import SchemaTooNewError

        raise SchemaTooNewError(too_new_message(where, revision))
    return revision is not None and READABLE_FROM <= revision <= HEAD_REVISION
