"""Where the database lives: one place decides it.

Order: explicit ``--db`` value, then ``KGRAPH_DB``, then ``<git root of cwd>/.claude/
execution-state.db``, then ``./.claude/execution-state.db`` outside git. A value that looks
like a SQLAlchemy URL (``scheme://...``) is used as is; anything else is a file path.

A server database (PostgreSQL) is shared by several projects: its URL carries the project
(``?project=NAME``; kgraph.db.project says how a clone names its project when the URL does
not), so every process of one clone, hooks and workers included, reads the same project.
"""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV_VAR = "KGRAPH_DB"
DEFAULT_RELATIVE_PATH = Path(".claude") / "execution-state.db"


def find_git_root(start: Path) -> Path | None:
    """Return the nearest ancestor of ``start`` holding ``.git`` (dir or file), else None.

    Walks the filesystem instead of running ``git``: a subprocess costs ~5 ms per hook.
    """
    current = start.resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def project_root(cwd: Path | None = None) -> Path:
    """The git root of ``cwd`` (default: the process cwd), or ``cwd`` itself outside git."""
    base = (cwd or Path.cwd()).resolve()
    return find_git_root(base) or base


def is_url(value: str) -> bool:
    return "://" in value


def path_to_url(path: Path) -> str:
    return f"sqlite:///{path}"


def resolve_database_url(
    db: str | None = None,
    cwd: Path | None = None,
    environ: dict[str, str] | None = None,
) -> str:
    """Return the SQLAlchemy URL of the database to use (see module docstring for the order)."""
    env = os.environ if environ is None else environ
    value = db or env.get(DB_ENV_VAR) or None
    if value:
        if is_url(value):
            if is_server_url(value):
                from kgraph.db.project import with_project

                return with_project(value, project_root(cwd), env)
            return value
        return path_to_url(Path(value).expanduser().resolve())
    return path_to_url(project_root(cwd) / DEFAULT_RELATIVE_PATH)


def is_server_url(url: str) -> bool:
    """True for a URL of a database server shared by projects (PostgreSQL)."""
    return url.startswith(("postgresql:", "postgresql+", "postgres:"))


def sqlite_path(url: str) -> Path | None:
    """The file path of a SQLite URL, or None for other engines and in-memory databases."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        return None
    rest = url[len(prefix) :].split("?", 1)[0]
    if rest in ("", ":memory:"):
        return None
    return Path(rest)
