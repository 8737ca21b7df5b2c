"""The Alembic head revision this kgraph expects.

Kept as a constant so that opening an up-to-date database never imports Alembic (~0.8 s).
A test checks it equals the head of the shipped migrations.
"""

HEAD_REVISION = "0005"

# Every revision this kgraph can upgrade from (a test checks them against the migrations):
# a database at any other revision was written by a newer kgraph, which is refused before
# anything is copied or changed.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005")
# Tables every revision has: a file holding one of them but no version is a kgraph database
# of unknown layout (a pre-release, or a damaged version table), never adopted.
CORE_TABLES = ("workflows", "entities", "relationships", "graph_entities")
