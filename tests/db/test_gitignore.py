from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.db.gitignore import (
    BEGIN,
    END,
    ignore_claude_dir,
    merged_gitignore,
)
from kgraph.runtime.state import ensure_state_dir


def test_block_is_added_once_and_replaced_in_place() -> None:
    mine = "# mine\nnode_modules/\n"
    once = merged_gitignore(mine)
    assert once.startswith(mine) and once.count(BEGIN) == 1 and once.rstrip().endswith(END)
    assert merged_gitignore(once) == once
    stale = once.replace("/kgraph/\n", "/old-rule\n") + "after\n"
    fixed = merged_gitignore(stale)
    assert "/old-rule" not in fixed and "/kgraph/" in fixed and fixed.endswith("after\n")


def test_git_ignores_exactly_kgraphs_files(tmp_repo: Path, git: Callable[..., str]) -> None:
    claude = tmp_repo / ".claude"
    assert ignore_claude_dir(claude) == claude / ".gitignore"
    assert ignore_claude_dir(claude) is None  # unchanged the second time
    ours = [
        "execution-state.db",
        "execution-state.db-wal",
        "execution-state.db-shm",
        "execution-state.db.lock",
        "execution-state.db.graph.lock",
        "execution-state.db.bak-0001-20260101T000000Z",
        "settings.local.json",
        "settings.json.bak-20260101T000000000000Z",
        "kgraph/hook.log",
    ]
    theirs = ["settings.json", "kgraph.toml", "skills/x/SKILL.md", "commands/go.md"]
    for name in ours + theirs:
        (claude / name).parent.mkdir(parents=True, exist_ok=True)
        (claude / name).touch()
    git(tmp_repo, "add", "-A")
    added = set(git(tmp_repo, "diff", "--cached", "--name-only").split())
    assert added == {".claude/.gitignore", *(f".claude/{n}" for n in theirs)}


def test_outside_git_no_ignore_file_is_written(tmp_path: Path) -> None:
    assert ignore_claude_dir(tmp_path / ".claude") is None
    assert not (tmp_path / ".claude").exists()


def test_the_state_folder_ignores_itself(tmp_repo: Path, git: Callable[..., str]) -> None:
    directory = ensure_state_dir(tmp_repo)
    (directory / "queue").mkdir()
    (directory / "queue" / "x.json").write_text("{}")
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    assert ".claude" not in git(tmp_repo, "status", "--porcelain", "--untracked-files=all")


def test_a_state_folder_removed_while_it_is_made_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The capture worker once died with FileNotFoundError .claude/kgraph/.gitignore: the
    folder was removed between its mkdir and the marker's write."""
    import shutil

    from kgraph.db.gitignore import ignore_state_dir

    folder = tmp_path / ".claude" / "kgraph"
    real_mkdir = Path.mkdir
    removed: list[Path] = []

    def mkdir_then_removed(self: Path, *args: Any, **kwargs: Any) -> None:
        real_mkdir(self, *args, **kwargs)
        if self == folder and not removed:
            removed.append(self)
            shutil.rmtree(self)  # someone's rm -rf, just then

    monkeypatch.setattr(Path, "mkdir", mkdir_then_removed)
    ignore_state_dir(folder)
    assert removed and (folder / ".gitignore").read_text().endswith("*\n")
