"""Running git: its output in a repository, None for every kind of failure."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kgraph.runtime.git import Blobs, GitRun, git_env, run_git


def test_output_of_a_command_in_a_repository(tmp_repo: Path) -> None:
    out = run_git(tmp_repo, "log", "--format=%s")
    assert out == "chore: initial commit\n"


def test_a_failing_command_or_no_repository_is_none(tmp_repo: Path, tmp_path: Path) -> None:
    assert run_git(tmp_repo, "cat-file", "-e", "0" * 40) is None
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert run_git(outside, "rev-parse", "HEAD") is None
    assert run_git(tmp_path / "missing", "status") is None  # cwd gone: OSError


def test_git_missing_is_none(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_repo / "no-bin"))
    assert run_git(tmp_repo, "status") is None


def test_output_in_another_encoding_is_replaced_not_fatal(tmp_repo: Path) -> None:
    (tmp_repo / os.fsdecode(b"caf\xe9.txt")).write_text("latin-1 name\n")
    out = run_git(tmp_repo, "ls-files", "-z", "--others")
    assert out == "caf\ufffd.txt\x00"


def test_optional_locks_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_OPTIONAL_LOCKS", "1")
    monkeypatch.setenv("KGRAPH_TEST_MARK", "kept")
    env = git_env()
    assert env["GIT_OPTIONAL_LOCKS"] == "0"
    assert env["KGRAPH_TEST_MARK"] == "kept"


def test_blobs_read_files_as_a_commit_left_them(tmp_repo: Path) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "a.py").write_text("def old_name(): ...\n")
    subprocess.run(["git", "add", "."], cwd=tmp_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "a"], cwd=tmp_repo, check=True)
    first = run_git(tmp_repo, "rev-parse", "HEAD")
    (tmp_repo / "src" / "a.py").write_text("def new_name(): ...\n")
    subprocess.run(["git", "commit", "-qam", "b"], cwd=tmp_repo, check=True)
    assert first is not None
    with Blobs(tmp_repo) as blobs:
        assert blobs.text(first.strip(), "src/a.py") == "def old_name(): ...\n"
        assert blobs.text("HEAD", "src/a.py") == "def new_name(): ...\n"
        assert blobs.text("HEAD", "src/missing.py") is None
        assert blobs.text("HEAD", "src") is None  # a tree, not a file
        assert blobs.text("HEAD", "a\nb") is None
        assert blobs.text("HEAD", "README.md") == "# demo\n"  # still in step after those


def test_blobs_outside_a_repository_or_without_git_are_none(
    tmp_path: Path, tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Blobs(tmp_path) as blobs:
        assert blobs.text("HEAD", "README.md") is None
        assert blobs.text("HEAD", "README.md") is None
    monkeypatch.setenv("PATH", str(tmp_repo / "no-bin"))
    with Blobs(tmp_repo) as blobs:
        assert blobs.text("HEAD", "README.md") is None


def test_a_started_run_gives_its_output_once_and_failures_as_none(
    tmp_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = GitRun(tmp_repo, "log", "--format=%s")
    assert run.output(timeout=10) == "chore: initial commit\n"
    assert run.output(timeout=10) is None  # collected already
    assert GitRun(tmp_repo, "cat-file", "-e", "0" * 40).output_bytes(timeout=10) is None
    assert GitRun(tmp_path / "missing", "status").output(timeout=10) is None  # cwd gone
    monkeypatch.setenv("PATH", str(tmp_repo / "no-bin"))
    assert GitRun(tmp_repo, "status").output(timeout=10) is None  # git missing
