"""What a path given on the command line means in the code graph: one rule for every command.

The graph stores POSIX paths relative to a *graph root*. ``graph parse`` (without
``--root``), ``graph export --root`` and the FILE arguments of the queries all find that
root the same way, so a folder given absolute or relative, from any current folder, names
the same stored paths:

- inside a git repository, the root is the repository's top folder;
- outside git, it is the current folder (where the database lives by default) when that
  folder holds the path, and otherwise the folder given itself (a file: its folder).

(A database found in a folder above is no marker: a stray ``~/.claude`` would make the
home folder the root of every project in it.)

A value that does not exist on disk is taken as already graph-relative (a deleted file, a
path copied from a query's output).
"""

from __future__ import annotations

from pathlib import Path

from kgraph.codegraph.filedeps import normalise_path
from kgraph.db.location import find_git_root

__all__ = ["graph_path", "graph_root"]


def graph_root(path: Path, cwd: Path | None = None) -> Path:
    """The folder the graph's paths are relative to, for ``path`` (see the module docstring)."""
    absolute = path.resolve()
    folder = absolute if absolute.is_dir() else absolute.parent
    git = find_git_root(folder)
    if git is not None:
        return git
    here = (cwd or Path.cwd()).resolve()
    if folder == here or here in folder.parents:
        return here
    return folder


def graph_path(value: str, cwd: Path | None = None) -> str:
    """``value`` as the graph stores it ("" for the root itself)."""
    candidate = Path(value)
    if cwd is not None and not candidate.is_absolute():
        candidate = cwd / candidate
    if not value or not candidate.exists():
        relative = normalise_path(value)
        return "" if relative == "." else relative
    relative = candidate.resolve().relative_to(graph_root(candidate, cwd)).as_posix()
    return "" if relative == "." else relative
