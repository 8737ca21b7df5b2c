"""Running git: its output in a repository, None for every kind of failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgraph.runtime.git import git_env, run_git


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
