"""Which files a parse sees in a git work tree (git's listing) and elsewhere (the walk):
the same files either way, and git's ids of the unmodified ones."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.codegraph.listing import blob_hash, current_hash, legacy_hash, list_sources
from kgraph.codegraph.summary_codec import content_hash
from kgraph.codegraph.walk import MAX_FILE_BYTES, iter_source_files
from tests.codegraph.conftest import write_tree

Git = Callable[..., str]

TREE = {
    ".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\nignored_but_tracked.py\n",
    "src/app.py": "def app():\n    pass\n",
    "src/x_pb2.py": "",
    "src/keep_pb2.py": "",
    "generated/out.py": "",
    "top_only.py": "",
    "src/top_only.py": "",
    "src/web/.gitignore": "*.js\n!main.js\n",
    "src/web/main.js": "",
    "src/web/bundle.js": "",
    "src/web/app.ts": "",
    "src/web/vendor.min.js": "",
    "node_modules/lib/index.js": "",
    ".venv/lib/site.py": "",
    "venv/__init__.py": "",  # a package named venv: kept
    "pkg.egg-info/x.py": "",
    "build/y.py": "",
    "notes.md": "",
    "ignored_but_tracked.py": "",
    "go/testdata/case.go": "package x\n",
    "go/main.go": "package main\n",
}


def _paths(files: list[object]) -> list[str]:
    return [f.path for f in files]  # type: ignore[attr-defined]


@pytest.fixture
def repo(tmp_repo: Path, git: Git) -> Path:
    """A work tree with every kind of file the walk tells apart, committed, then edited:
    one file modified, one added untracked, one tracked file deleted, a symlink, a file
    too big, a nested repository."""
    write_tree(tmp_repo, TREE)
    git(tmp_repo, "add", "-A")
    git(tmp_repo, "add", "-f", "ignored_but_tracked.py")
    git(tmp_repo, "commit", "-q", "-m", "tree")
    (tmp_repo / "src" / "app.py").write_text("def app():\n    return 2\n")
    write_tree(tmp_repo, {"src/new.py": "x = 1\n", "nested/inner.py": "y = 2\n"})
    git(tmp_repo / "nested", "init", "-q")
    (tmp_repo / "src" / "keep_pb2.py").unlink()
    os.symlink(tmp_repo / "src" / "app.py", tmp_repo / "src" / "link.py")
    (tmp_repo / "src" / "huge.py").write_text("#" * (MAX_FILE_BYTES + 1))
    return tmp_repo


def test_git_lists_what_the_walk_finds(repo: Path) -> None:
    listed = list_sources(repo)
    assert listed.method == "git"
    assert _paths(listed.files) == _paths(list(iter_source_files(repo)))
    assert "src/new.py" in _paths(listed.files) and "nested/inner.py" in _paths(listed.files)
    assert "ignored_but_tracked.py" not in _paths(listed.files)


def test_a_folder_below_the_root_lists_the_same_as_its_walk(repo: Path) -> None:
    for start in (repo / "src", repo / "src" / "web", repo / "nested"):
        listed = list_sources(repo, start)
        assert _paths(listed.files) == _paths(list(iter_source_files(repo, start)))


def test_git_vouches_only_for_unmodified_tracked_files(repo: Path) -> None:
    listed = list_sources(repo)
    assert "src/app.py" not in listed.known  # modified
    assert "src/new.py" not in listed.known  # untracked
    assert listed.known["src/web/app.ts"] == blob_hash(b"")
    for source in listed.files:
        assert current_hash(listed, source) == blob_hash(source.absolute.read_bytes())


def test_outside_git_the_folder_is_walked(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "plain", {"a.py": "", "b/c.ts": "", "b/d.md": ""})
    listed = list_sources(root)
    assert (listed.method, _paths(listed.files), listed.known) == ("walk", ["a.py", "b/c.ts"], {})


def test_when_git_refuses_the_folder_it_is_walked(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")  # no git to run
    listed = list_sources(repo)
    assert listed.method == "walk"
    assert _paths(listed.files) == _paths(list(iter_source_files(repo)))


def test_a_repository_named_by_the_environment_is_not_the_one_listed(
    repo: Path, tmp_path: Path, git: Git, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # as inside a git hook of another
    assert _paths(list_sources(repo).files) == _paths(list(iter_source_files(repo)))


def test_the_content_hash_is_gits_blob_id(repo: Path, git: Git) -> None:
    data = (repo / "src" / "app.py").read_bytes()
    expected = git(repo, "hash-object", "src/app.py").strip()
    assert blob_hash(data) == content_hash(data) == expected
    assert legacy_hash(data) != expected and len(legacy_hash(data)) == len(expected)
