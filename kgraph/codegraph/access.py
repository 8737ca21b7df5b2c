"""How the code-graph queries read many ids at once: :func:`fetch_in`, one statement per
few thousand ids on a DB-API connection (kgraph.db.reader's ``ReadConnection``).

The queries run on that connection inside the transactions of a kgraph.db
``Transactions`` (a Database under SQLAlchemy, or a DirectDatabase on the driver alone),
so a one-off ``kgraph graph`` command never imports SQLAlchemy. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgraph.db.reader import ReadConnection, chunked, marks

__all__ = ["BIG_CHUNK", "fetch_in"]

# Parameters in one statement of fetch_in: well under SQLite's 32,766 host parameters, and
# few statements for the big levels of a blast radius (~10,000 ids).
BIG_CHUNK = 5000


def fetch_in(
    conn: ReadConnection, sql: str, values: Iterable[Any], size: int = BIG_CHUNK
) -> list[tuple[Any, ...]]:
    """Rows of ``sql``, whose one ``{}`` is a list of ``?``, for the distinct ``values``
    (sorted), ``size`` at a time; plain tuples."""
    rows: list[tuple[Any, ...]] = []
    for chunk in chunked(sorted(set(values)), size):
        rows += conn.execute(sql.format(marks(len(chunk))), tuple(chunk)).fetchall()
    return rows
