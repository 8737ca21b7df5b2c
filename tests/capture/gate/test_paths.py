"""Paths from a transcript mapped onto the repo; shapes cut from real sessions, one of them
recorded on Windows (its cwd ``C:\\Users\\<name>\\git\\starcar``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.capture.gate.paths import PathMap, posix_path

WINDOWS_CWD = "C:\\Users\\ann\\git\\starcar"


def test_a_windows_session_s_paths_are_made_repo_relative(tmp_path: Path) -> None:
    paths = PathMap(tmp_path, WINDOWS_CWD)
    assert paths.rel("C:\\Users\\ann\\git\\starcar\\docs\\setup.md") == "docs/setup.md"
    assert paths.rel("c:\\Users\\ann\\git\\starcar\\CLAUDE.md") == "CLAUDE.md"
    # outside the checkout: no repo path, and never taken for a relative one
    assert paths.rel("C:\\Users\\ann\\notes\\todo.md") is None
    assert paths.rel("docs\\setup.md") == "docs\\setup.md"  # relative stays relative


def test_a_windows_path_is_never_taken_for_one_under_the_process_s_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    paths = PathMap(tmp_path, WINDOWS_CWD)
    assert paths.rel("C:\\Users\\ann\\notes\\todo.md") is None


def test_a_windows_session_s_text_is_scrubbed(tmp_path: Path) -> None:
    paths = PathMap(tmp_path, WINDOWS_CWD)
    text = (
        "Edited C:\\Users\\ann\\git\\starcar\\scripts\\Land-Verdict.ps1; the log is in "
        "C:\\Users\\ann\\AppData\\Local\\Temp\\out.txt"
    )
    assert (
        paths.scrub(text)
        == "Edited scripts/Land-Verdict.ps1; the log is in ~/AppData/Local/Temp/out.txt"
    )


def test_posix_paths_are_left_as_they_are(tmp_path: Path) -> None:
    assert posix_path("/home/ann/x.py") == "/home/ann/x.py"
    assert posix_path("src\\x.py") == "src\\x.py"
    paths = PathMap(tmp_path, "/home/ann/repo")
    assert paths.rel("/home/ann/repo/src/x.py") == "src/x.py"
    assert paths.scrub("see /home/ann/repo/src/x.py and /home/ann/y") == "see src/x.py and ~/y"


# A real session's shapes: Claude Code recorded the cwd resolved (an iCloud Drive folder) while
# the agent wrote the paths through the symlink it was given (``~/Developer``).
ICLOUD_CWD = "/Users/ann/Library/Mobile Documents/com~apple~CloudDocs/Developer/nv-mcp"


def _repo(tmp_path: Path, name: str = "nv-mcp") -> Path:
    root = tmp_path / name
    (root / "build-plan").mkdir(parents=True)
    (root / "build-plan" / "config.yaml").write_text("a: 1\n")
    (root / name.replace("-", "_")).mkdir()
    return root


def test_a_path_through_a_symlink_of_the_checkout_is_resolved(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (tmp_path / "Developer").symlink_to(tmp_path, target_is_directory=True)
    paths = PathMap(root, ICLOUD_CWD)
    linked = f"{tmp_path}/Developer/nv-mcp/build-plan/config.yaml"
    assert paths.rel(linked) == "build-plan/config.yaml"


def test_a_path_recorded_elsewhere_maps_by_the_folder_named_as_the_repo(tmp_path: Path) -> None:
    paths = PathMap(_repo(tmp_path), ICLOUD_CWD)
    assert paths.rel("/Users/ann/Developer/nv-mcp/build-plan/config.yaml") == (
        "build-plan/config.yaml"
    )
    assert paths.scrub("see /Users/ann/Developer/nv-mcp/build-plan/config.yaml") == (
        "see build-plan/config.yaml"
    )
    # a folder of that name whose rest is no file of the repo is somewhere else
    assert paths.rel("/Users/ann/Developer/nv-mcp/notes/todo.md") is None
    assert paths.rel("/Users/ann/backup/other/config.yaml") is None


def test_a_cwd_inside_the_repo_is_a_folder_of_it_not_its_root(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    paths = PathMap(root, f"{root}/build-plan")
    assert paths.rel(f"{root}/build-plan/config.yaml") == "build-plan/config.yaml"
    assert paths.rel(f"{root}/README.md") == "README.md"
    # recorded on another machine: the folder it moved into, after the checkout it started in
    elsewhere = PathMap(tmp_path, ("/home/ann/repo", "/home/ann/repo/spec", "/tmp/scratch"))
    assert set(elsewhere.bases) - {str(tmp_path), str(tmp_path.resolve())} == {"/home/ann/repo"}
    assert elsewhere.rel("/home/ann/repo/spec/tools.py") == "spec/tools.py"
    assert elsewhere.rel("/tmp/scratch/out.txt") is None


def test_a_session_that_moved_into_the_repo_or_a_worktree_elsewhere_maps(tmp_path: Path) -> None:
    started = ("/Users/ann/Projects/other", "/Users/ann/Projects/repo")
    assert PathMap(tmp_path, started).rel("/Users/ann/Projects/repo/src/a.py") == "src/a.py"
    worktree = "/Users/ann/Projects/worktrees/feature/435-progress"
    paths = PathMap(tmp_path, ("/Users/ann/Projects/repo", worktree))
    assert paths.rel(f"{worktree}/src/a.py") == "src/a.py"


def test_a_file_of_a_claude_code_worktree_is_the_repo_s_file(tmp_path: Path) -> None:
    paths = PathMap(_repo(tmp_path), ICLOUD_CWD)
    worktree = f"{ICLOUD_CWD}/.claude/worktrees/fix-auth/src/auth.py"
    assert paths.rel(worktree) == "src/auth.py"
    assert paths.rel(f"{ICLOUD_CWD}/.claude/settings.json") == ".claude/settings.json"
