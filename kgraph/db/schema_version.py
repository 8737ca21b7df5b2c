"""The Alembic head revision this kgraph expects.

Kept as a constant so that opening an up-to-date database never imports Alembic (~0.8 s).
A test checks it equals the head of the shipped migrations.
"""

HEAD_REVISION = "0003"
