from pathlib import Path

import pytest

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


def _server_setting(root: Path, text: str) -> None:
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "kgraph.toml").write_text(f"[database]\n{text}\n")


def test_the_project_setting_names_a_server_and_the_environment_still_wins(
    tmp_repo: Path,
) -> None:
    _server_setting(tmp_repo, 'url = "postgresql+psycopg://kgraph@db.internal/kgraph"')
    found = resolve_database_url(cwd=tmp_repo, environ={})
    assert found.startswith("postgresql+psycopg://kgraph@db.internal/kgraph?project=")
    mine = resolve_database_url(cwd=tmp_repo, environ={"KGRAPH_DB": "/tmp/x.db"})
    assert mine == "sqlite:////tmp/x.db"
    secret = {"PW": "s3cr:t/"}
    _server_setting(
        tmp_repo, 'url = "postgresql+psycopg://kgraph@db.internal/kgraph"\npassword_env = "PW"'
    )
    assert "kgraph:s3cr%3At%2F@db.internal" in resolve_database_url(cwd=tmp_repo, environ=secret)


def test_a_setting_with_a_password_or_not_a_server_is_refused(tmp_repo: Path) -> None:
    from kgraph.db.location import without_password
    from kgraph.errors import InvalidValueError

    _server_setting(tmp_repo, 'url = "postgresql://kgraph:hunter2@db/kgraph"')
    with pytest.raises(InvalidValueError, match="holds a password"):
        resolve_database_url(cwd=tmp_repo, environ={})
    _server_setting(tmp_repo, 'url = "sqlite:///x.db"')
    with pytest.raises(InvalidValueError, match="postgresql://"):
        resolve_database_url(cwd=tmp_repo, environ={})
    assert without_password("postgresql://u:p@h:5/d?x=1") == "postgresql://u@h:5/d?x=1"


def test_a_home_relative_path_is_in_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_database_url("~/k.db", environ={}) == f"sqlite:///{tmp_path.resolve()}/k.db"


def test_a_symlink_loop_is_pathlibs_error(tmp_path: Path) -> None:
    """Resolved as Path.resolve() does on Python 3.11 (the CLI says it in one line)."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(RuntimeError, match="Symlink loop"):
        resolve_database_url(str(tmp_path / "a" / "k.db"), environ={})
    with pytest.raises(RuntimeError, match="Symlink loop"):
        Path(tmp_path / "a" / "k.db").resolve()


def test_resolving_a_local_database_imports_no_pathlib(tmp_repo: Path) -> None:
    """A checkpoint command resolves its database on strings (pathlib and urllib.parse
    cost it ~4 ms)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom kgraph.db import resolve_database_url\n"
        "print(resolve_database_url())\n"
        "print(sorted({'pathlib', 'urllib.parse'} & set(sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_repo, capture_output=True, text=True, check=True
    )
    url, imported = proc.stdout.splitlines()
    assert url == f"sqlite:///{tmp_repo.resolve()}/.claude/execution-state.db"
    assert imported == "[]"


def test_the_settings_file_is_the_one_kgraph_config_reads() -> None:
    from kgraph.config import CONFIG_RELATIVE_PATH
    from kgraph.db.location import CONFIG_NAME, DEFAULT_FOLDER

    assert Path(DEFAULT_FOLDER) / CONFIG_NAME == CONFIG_RELATIVE_PATH
