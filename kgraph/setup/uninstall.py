"""What ``kgraph install --uninstall`` tidies after the hooks and the MCP entry are gone.

The goal is the repository as it was before the install: ``git status --porcelain
--ignored`` the same, except kgraph's data when it is kept. So the uninstall removes
kgraph's block from ``.claude/.gitignore`` (and the file, and ``.claude/``, when nothing
else is left in them). Kept data (the database and the state folder ``.claude/kgraph/``,
which holds the backups) stays out of git through the clone's own exclude file, never
committed; ``--purge`` deletes it instead. A database elsewhere (``--db``, a server) is
never touched: the purge says so.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.db.gitignore import BEGIN, DATABASE_NAME, exclude_locally, set_block

__all__ = ["KEPT_RULES", "Tidied", "tidy_after_uninstall"]

# Kept data, ignored through .git/info/exclude once .claude/.gitignore's block is gone.
KEPT_RULES = (
    f"/.claude/{DATABASE_NAME}",
    f"/.claude/{DATABASE_NAME}-*",
    f"/.claude/{DATABASE_NAME}.*",
    "/.claude/kgraph/",
)


@dataclass
class Tidied:
    """What the tidy-up did: files and folders removed, data kept (paths as given)."""

    removed: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)


def _data(claude: Path) -> list[Path]:
    """The database and its side files, and the state folder, that exist in ``claude``."""
    state = [claude / "kgraph"] if (claude / "kgraph").is_dir() else []
    return sorted([*claude.glob(f"{DATABASE_NAME}*"), *state])


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def tidy_after_uninstall(root: Path, *, purge: bool) -> Tidied:
    """Tidy ``root`` (the project) after kgraph's hooks and MCP entry were removed."""
    done = Tidied()
    claude = root / ".claude"
    ignore = claude / ".gitignore"
    emptied = ignore.is_file() and set_block(ignore, (), BEGIN) is not None
    if emptied and not ignore.read_text(encoding="utf-8").strip():
        ignore.unlink()
        done.removed.append(ignore)
    data = _data(claude) if claude.is_dir() else []
    if purge:
        for path in data:
            _remove(path)
            done.removed.append(path)
        data = []
    done.kept = data
    exclude_locally(root, KEPT_RULES if data else ())
    if claude.is_dir() and not any(claude.iterdir()):
        claude.rmdir()
        done.removed.append(claude)
    return done
