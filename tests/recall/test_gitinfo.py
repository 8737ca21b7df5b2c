from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.recall.gitinfo import git_state, issue_from_branch, parse_status


@pytest.mark.parametrize(
    ("branch", "issue"),
    [
        ("issue-123", 123),
        ("feat/123-add-login", 123),
        ("fix/issue-123", 123),
        ("fix/issue_45-retry", 45),
        ("#77", 77),
        ("bugfix/#88-crash", 88),
        ("gh-9-docs", 9),
        ("123-quick", 123),
        ("feat/42", 42),
        ("main", None),
        ("release/1.2.3", None),
        ("feature/v2-upgrade", None),
        ("debug-5", None),
        (None, None),
        ("", None),
    ],
)
def test_issue_from_branch(branch: str | None, issue: int | None) -> None:
    assert issue_from_branch(branch) == issue


def test_parse_status_reads_branch_head_and_every_kind_of_change() -> None:
    out = (
        b"# branch.oid 0123abcd\x00# branch.head feat/7-x\x00"
        b"1 .M N... 100644 100644 100644 aaa bbb src/a.py\x00"
        b"1 A. N... 000000 100644 100644 000 ccc src/new file.py\x00"
        b"2 R. N... 100644 100644 100644 ddd eee R100 src/renamed.py\x00src/old.py\x00"
        b"? notes/todo.txt\x00? .claude/\x00? .claude/kgraph/queue/x.json\x00"
    )
    state = parse_status(out)
    assert state.branch == "feat/7-x"
    assert state.head == "0123abcd"
    assert state.changed_files == (
        "src/a.py",
        "src/new file.py",
        "src/renamed.py",
        "notes/todo.txt",
    )


def test_git_state_of_a_real_repository(tmp_repo: Path, git: Callable[..., str]) -> None:
    git(tmp_repo, "checkout", "-q", "-b", "fix/issue-5-crash")
    (tmp_repo / "README.md").write_text("changed\n")
    (tmp_repo / "staged.py").write_text("x = 1\n")
    git(tmp_repo, "add", "staged.py")
    (tmp_repo / "untracked.py").write_text("y = 2\n")
    state = git_state(tmp_repo)
    assert state.branch == "fix/issue-5-crash"
    assert state.head == git(tmp_repo, "rev-parse", "HEAD").strip()
    assert set(state.changed_files) == {"README.md", "staged.py", "untracked.py"}


def test_git_state_outside_a_repository_is_empty(tmp_path: Path) -> None:
    state = git_state(tmp_path)
    assert state.branch is None and state.head is None and state.changed_files == ()
