"""Noticing that a database changed under a long-lived process (the MCP server, a notebook).

Two things can change while a process holds a database open:

- its **rows**: another process committed. ``PRAGMA data_version`` on one dedicated
  connection moves whenever any other connection commits (SQLite documents it for exactly
  this), so a cache keyed on it is never stale and costs one pragma per check;
- the **file itself**: it was deleted, restored from a backup or replaced by a newer kgraph's
  upgrade copy. The (device, inode) pair tells; the process must reopen (and re-check the
  schema) instead of reading a file nobody else sees any more.

Only SQLite files are watched; for any other database ``version()`` is None (unknown) and
callers must not cache.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


class DataWatch:
    """Change detection for one SQLite database file (see module docstring)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._identity = self._stat_identity()

    def _stat_identity(self) -> tuple[int, int] | None:
        if self.path is None:
            return None
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def replaced(self) -> bool:
        """True when the file at ``path`` is no longer the one this watch started on."""
        return self.path is not None and self._stat_identity() != self._identity

    def version(self) -> int | None:
        """A number that changes whenever another connection commits; None when unknown."""
        if self.path is None:
            return None
        try:
            if self._conn is None:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            self.close()
            return None

    def schema_revision(self) -> str | None:
        """The schema revision recorded in the file now (None when unknown)."""
        if self.version() is None or self._conn is None:
            return None
        try:
            row = self._conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
