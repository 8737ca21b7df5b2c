"""Where the database lives: one place decides it.

Order: explicit ``--db`` value, then ``KGRAPH_DB``, then the project's own setting
(``[database] url`` in ``.claude/kgraph.toml``, which ``kgraph install --db URL`` writes, so
the hooks, the worker and the MCP server find a team server without a shell variable), then
``<git root of cwd>/.claude/execution-state.db``, then ``./.claude/execution-state.db``
outside git. A value that looks like a SQLAlchemy URL (``scheme://...``) is used as is;
anything else is a file path.

The setting never holds a password (the file is committed): libpq finds it in
``~/.pgpass`` / ``PGPASSFILE``, or ``password_env`` names an environment variable::

    [database]
    url = "postgresql+psycopg://kgraph@db.internal:5432/kgraph"
    password_env = "KGRAPH_DB_PASSWORD"   # optional

A server database (PostgreSQL) is shared by several projects: its URL carries the project
(``?project=NAME``; kgraph.db.project says how a clone names its project when the URL does
not), so every process of one clone, hooks and workers included, reads the same project.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

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
    value = db or env.get(DB_ENV_VAR) or project_server(project_root(cwd), env)
    if value:
        if is_url(value):
            if is_server_url(value):
                from kgraph.db.project import with_project

                return with_project(value, project_root(cwd), env)
            return value
        return path_to_url(Path(value).expanduser().resolve())
    return path_to_url(project_root(cwd) / DEFAULT_RELATIVE_PATH)


def project_server(root: Path, environ: Mapping[str, str]) -> str | None:
    """The server URL of the project's ``[database]`` setting (its password, if any, from
    the variable ``password_env`` names); None when there is none. Raises
    InvalidValueError for a setting that holds a password or is not a server URL (a file
    that is not valid TOML is no setting: every reader of it logs that)."""
    from kgraph.config import CONFIG_RELATIVE_PATH, load_config, section
    from kgraph.errors import InvalidValueError

    try:
        config = load_config(root)
    except InvalidValueError:  # a typo elsewhere in the file: the settings' readers say so
        return None
    table = section(config, "database")
    url = table.get("url")
    if not url:
        return None
    where = root / CONFIG_RELATIVE_PATH
    if not isinstance(url, str) or not is_server_url(url):
        raise InvalidValueError(f"{where}: [database] url must be a postgresql:// URL")
    parts = urlsplit(url)
    if parts.password is not None:
        raise InvalidValueError(
            f"{where}: [database] url holds a password; keep it in ~/.pgpass (or PGPASSFILE), "
            "or name a variable holding it with password_env"
        )
    name = table.get("password_env")
    password = environ.get(name) if isinstance(name, str) and name else None
    if password:
        user = quote(parts.username or "", safe="")
        netloc = f"{user}:{quote(password, safe='')}@{parts.netloc.rsplit('@', 1)[-1]}"
        url = urlunsplit(parts._replace(netloc=netloc))
    return url


def without_password(url: str) -> str:
    """``url`` with its password (if any) left out: what may be written to a file."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = quote(parts.username or "", safe="")
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}" if user else host))


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
