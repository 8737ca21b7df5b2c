"""``kgraph.open()``: which database and project root a target names, and opening it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from kgraph.api.embedder import WarmEmbedder
from kgraph.api.project import Project
from kgraph.db import open_database, project_root, resolve_database_url

if TYPE_CHECKING:
    from kgraph.embeddings import Embedder


def _locate(target: str | Path | None, cwd: Path | None) -> tuple[str, Path]:
    """(database URL, project root) for ``kgraph.open``'s target (see its docstring)."""
    if target is None:
        return resolve_database_url(cwd=cwd), project_root(cwd)
    text = str(target)
    if "://" in text:
        return text, project_root(cwd)
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    if path.is_dir():
        root = project_root(path)
        return resolve_database_url(cwd=root, environ={}), root
    return resolve_database_url(str(path), environ={}), project_root(path.resolve().parent)


def open(
    target: str | Path | None = None,
    *,
    embedder: str | Embedder | Literal[False] | None = None,
    cwd: Path | None = None,
) -> Project:
    """Open a project's database (created and upgraded as needed) and return a Project.

    ``target``: None — this directory's project (``$KGRAPH_DB``, else ``<git root>/.claude/
    execution-state.db``); a directory — that project's database; a file path or a
    SQLAlchemy URL — that database. ``embedder``: a backend name ("fake",
    "all-MiniLM-L6-v2"; default ``$KGRAPH_EMBEDDER``), an Embedder, or False (lexical only).
    Use it as a context manager, or call :meth:`Project.close`.
    """
    url, root = _locate(target, cwd)
    return Project(open_database(url), root, WarmEmbedder(embedder))
