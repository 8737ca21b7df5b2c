"""One meaning for a path in every graph command (kgraph/codegraph/paths.py)."""

from __future__ import annotations

from pathlib import Path

from kgraph.codegraph.paths import graph_path, graph_root


def test_inside_git_paths_are_relative_to_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("")
    assert graph_root(repo / "pkg", cwd=tmp_path) == repo.resolve()
    assert graph_path(str(repo / "pkg" / "mod.py"), cwd=tmp_path) == "pkg/mod.py"
    assert graph_path("pkg/mod.py", cwd=repo) == "pkg/mod.py"
    assert graph_path(str(repo), cwd=tmp_path) == ""


def test_outside_git_the_current_folder_is_the_root_when_it_holds_the_path(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    assert graph_root(project / "src", cwd=project) == project.resolve()
    assert graph_path("src", cwd=project) == graph_path(str(project / "src"), cwd=project) == "src"
    # From elsewhere: the folder given is its own root.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert graph_root(project / "src", cwd=elsewhere) == (project / "src").resolve()


def test_a_path_that_does_not_exist_is_taken_as_graph_relative(tmp_path: Path) -> None:
    assert graph_path("./gone\\old.py", cwd=tmp_path) == "gone/old.py"
    assert graph_path(".", cwd=tmp_path / "missing") == ""
