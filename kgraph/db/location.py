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

Resolving works on strings with ``os.path`` and imports neither pathlib nor urllib.parse
(~4 ms, a tenth of a checkpoint command; kgraph.db.direct) unless a function that returns
a ``Path`` is called or the URL is a server's. It behaves as ``Path.resolve`` and
``Path.exists`` do, symlink loops and refused folders included.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from errno import EBADF, ELOOP, ENOENT, ENOTDIR
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

DB_ENV_VAR = "KGRAPH_DB"
# A project's own database: <root>/.claude/execution-state.db.
DEFAULT_FOLDER = ".claude"
DEFAULT_NAME = "execution-state.db"
CONFIG_NAME = "kgraph.toml"  # kgraph.config.CONFIG_RELATIVE_PATH, in DEFAULT_FOLDER


def _exists(path: str) -> bool:
    """``Path(path).exists()``: False when it is missing, an error for a folder this user
    may not look into."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in (ENOENT, ENOTDIR, EBADF, ELOOP):
            return False
        raise
    except ValueError:
        return False
    return True


def _resolved(path: str) -> str:
    """``str(Path(path).resolve())``: absolute, symlinks followed; a symlink loop is the
    RuntimeError Python 3.11's pathlib raises (the CLI says it in one line)."""
    resolved = os.path.realpath(path)
    try:
        os.stat(resolved)
    except OSError as exc:
        if exc.errno == ELOOP:
            raise RuntimeError(f"Symlink loop from {exc.filename!r}") from None
    return resolved


def _git_root(start: str) -> str | None:
    current = _resolved(start)
    while True:
        if _exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def find_git_root(start: Path) -> Path | None:
    """Return the nearest ancestor of ``start`` holding ``.git`` (dir or file), else None.

    Walks the filesystem instead of running ``git``: a subprocess costs ~5 ms per hook.
    """
    from pathlib import Path

    found = _git_root(os.fspath(start))
    return None if found is None else Path(found)


def _project_root(cwd: str | os.PathLike[str] | None) -> str:
    base = _resolved(os.getcwd() if cwd is None else os.fspath(cwd))
    return _git_root(base) or base


def project_root(cwd: Path | None = None) -> Path:
    """The git root of ``cwd`` (default: the process cwd), or ``cwd`` itself outside git."""
    from pathlib import Path

    return Path(_project_root(cwd))


def is_url(value: str) -> bool:
    return "://" in value


def path_to_url(path: Path | str) -> str:
    return f"sqlite:///{path}"


def resolve_database_url(
    db: str | None = None,
    cwd: Path | None = None,
    environ: dict[str, str] | None = None,
) -> str:
    """Return the SQLAlchemy URL of the database to use (see module docstring for the order)."""
    env = os.environ if environ is None else environ
    value = db or env.get(DB_ENV_VAR)
    root: str | None = None
    if not value:
        root = _project_root(cwd)
        if _exists(os.path.join(root, DEFAULT_FOLDER, CONFIG_NAME)):
            from pathlib import Path

            value = project_server(Path(root), env)
    if value:
        if is_url(value):
            if is_server_url(value):
                from kgraph.db.project import with_project

                return with_project(value, project_root(cwd), env)
            return value
        return path_to_url(_resolved(_expanduser(value)))
    assert root is not None
    return path_to_url(os.path.join(root, DEFAULT_FOLDER, DEFAULT_NAME))


def _expanduser(path: str) -> str:
    """``Path(path).expanduser()``: a leading ``~`` or ``~user``; RuntimeError when there is
    no home to put there."""
    if not path.startswith("~"):
        return path
    first, sep, rest = path.partition("/")
    home = os.path.expanduser(first)
    if home.startswith("~"):
        raise RuntimeError("Could not determine home directory.")
    return home + sep + rest


def project_server(root: Path, environ: Mapping[str, str]) -> str | None:
    """The server URL of the project's ``[database]`` setting (its password, if any, from
    the variable ``password_env`` names); None when there is none. Raises
    InvalidValueError for a setting that holds a password or is not a server URL (a file
    that is not valid TOML is no setting: every reader of it logs that)."""
    from urllib.parse import quote, urlsplit, urlunsplit

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
    from urllib.parse import quote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = quote(parts.username or "", safe="")
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}" if user else host))


def is_server_url(url: str) -> bool:
    """True for a URL of a database server shared by projects (PostgreSQL)."""
    return url.startswith(("postgresql:", "postgresql+", "postgres:"))


def sqlite_file(url: str) -> str | None:
    """The file path of a SQLite URL, or None for other engines and in-memory databases."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        return None
    rest = url[len(prefix) :].split("?", 1)[0]
    if rest in ("", ":memory:"):
        return None
    return rest


def sqlite_path(url: str) -> Path | None:
    """:func:`sqlite_file` as a Path."""
    from pathlib import Path

    file = sqlite_file(url)
    return None if file is None else Path(file)
