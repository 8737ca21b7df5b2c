from pathlib import Path

from kgraph.db.location import find_git_root, resolve_database_url, sqlite_path


def test_explicit_path_wins_over_environment(tmp_path: Path) -> None:
    url = resolve_database_url(
        str(tmp_path / "a.db"), environ={"KGRAPH_DB": str(tmp_path / "b.db")}
    )
    assert url == f"sqlite:///{tmp_path / 'a.db'}"


def test_environment_used_when_no_option(tmp_path: Path) -> None:
    url = resolve_database_url(None, cwd=tmp_path, environ={"KGRAPH_DB": str(tmp_path / "b.db")})
    assert url == f"sqlite:///{tmp_path / 'b.db'}"


def test_sqlalchemy_url_passes_through() -> None:
    url = "mysql://u:p@localhost/kgraph"
    assert resolve_database_url(url, environ={}) == url
    assert sqlite_path(url) is None


def test_a_server_url_gets_the_project_of_the_clone(tmp_path: Path) -> None:
    url = "postgresql+psycopg://u:p@localhost/kgraph"
    team = resolve_database_url(url, cwd=tmp_path, environ={"KGRAPH_PROJECT": "team/app"})
    assert team == url + "?project=team%2Fapp"
    assert sqlite_path(team) is None
    own = url + "?sslmode=require&project=mine"
    assert resolve_database_url(own, environ={"KGRAPH_PROJECT": "other"}) == own


def test_git_root_default(tmp_repo: Path) -> None:
    nested = tmp_repo / "src" / "pkg"
    nested.mkdir(parents=True)
    url = resolve_database_url(None, cwd=nested, environ={})
    assert url == f"sqlite:///{tmp_repo.resolve() / '.claude' / 'execution-state.db'}"
    assert find_git_root(nested) == tmp_repo.resolve()


def test_outside_git_uses_cwd(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    url = resolve_database_url(None, cwd=plain, environ={})
    assert sqlite_path(url) == plain.resolve() / ".claude" / "execution-state.db"


def test_relative_path_is_resolved(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    assert (
        sqlite_path(resolve_database_url("x/k.db", environ={})) == tmp_path.resolve() / "x" / "k.db"
    )
