"""Shared fixtures: every test works in temp directories with a temp database.

No test touches the user's home, the real ~/.claude, or this repository's .claude/.

Backends: in the suites of BACKEND_SUITES every test that uses a database (``db``,
``db_url``, ``module_db``, the hooks' ``project_db``, the API's and MCP's ``sample``) runs
twice, on SQLite and on a real PostgreSQL server the session starts (tests/pgserver.py;
each test gets a project nobody used, i.e. an empty schema). ``@pytest.mark.sqlite_only``
keeps a test about the SQLite file itself on SQLite. ``pytest --backend sqlite`` (or
``postgresql``) runs one backend only.
Without a server binary the PostgreSQL runs are skipped, saying why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgraph.db import Database, open_database
from tests import pgserver

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = PROJECT_ROOT.parent / "shared"
TRANSCRIPTS_DIR = SHARED_DIR / "transcripts"
TESTS_DIR = Path(__file__).resolve().parent
BACKENDS = ("sqlite", "postgresql")
BACKEND_SUITES = frozenset(
    {"knowledge", "checkpoint", "codegraph", "hooks", "recall", "db", "api", "mcp"}
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=(*BACKENDS, "both"),
        default="both",
        help="database backend(s) of the backend-parametrised suites",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    try:
        suite = Path(str(metafunc.definition.path)).relative_to(TESTS_DIR).parts[0]
    except ValueError:
        return
    if suite not in BACKEND_SUITES or metafunc.definition.get_closest_marker("sqlite_only"):
        return
    chosen = metafunc.config.getoption("--backend")
    backends = BACKENDS if chosen == "both" else (chosen,)
    metafunc.parametrize("backend", backends, indirect=True, scope="module")


@pytest.fixture(scope="module")
def backend(request: pytest.FixtureRequest) -> str:
    """ "sqlite" or "postgresql" (see the module docstring)."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pgserver.PgServer]:
    """A PostgreSQL server for the whole run (one per xdist worker)."""
    reason = pgserver.why_unavailable()
    if reason is not None:
        pytest.skip(reason)
    server = pgserver.start_server()
    yield server
    server.stop()


def backend_url(request: pytest.FixtureRequest, backend: str, sqlite_file: Path) -> str:
    """A URL of an empty database on ``backend`` (``sqlite_file`` for SQLite)."""
    if backend == "postgresql":
        server: pgserver.PgServer = request.getfixturevalue("pg_server")
        return server.fresh_url()
    return f"sqlite:///{sqlite_file}"


@pytest.fixture(autouse=True)
def _isolated_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Point HOME, CLAUDE_CONFIG_DIR and KGRAPH_DB away from anything real."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.delenv("KGRAPH_DB", raising=False)
    monkeypatch.delenv("KGRAPH_DISABLED", raising=False)
    monkeypatch.setenv("KGRAPH_EMBEDDER", "fake")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    # The folder exists: kgraph creates only a project's own .claude/ folder.
    (tmp_path / "state").mkdir(exist_ok=True)
    return tmp_path / "state" / "kgraph.db"


@pytest.fixture
def db_url(request: pytest.FixtureRequest, backend: str, db_path: Path) -> str:
    """The URL of the test's database: ``db_path`` on SQLite, a fresh project on PostgreSQL."""
    return backend_url(request, backend, db_path)


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_database(db_url)
    yield database
    database.close()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def git() -> Callable[..., str]:
    """``git(repo, *args)`` runs git in ``repo`` and returns stdout."""
    return _git


@pytest.fixture
def tmp_repo(tmp_path: Path) -> Path:
    """An initialised git repository with one commit, on branch ``main``."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "Test")
    _git(repo, "config", "commit.gpgsign", "false")
    (repo / "README.md").write_text("# demo\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "chore: initial commit")
    return repo


class CliResult:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self) -> object:
        return json.loads(self.stdout)


@pytest.fixture
def run_kgraph(db_path: Path, db_url: str) -> Callable[..., CliResult]:
    """Run the real ``kgraph`` CLI in a subprocess against the temp database.

    ``run_kgraph(*args, cwd=None, input=None, env=None)``.
    """

    def run(
        *args: str,
        cwd: Path | None = None,
        input: str | bytes | None = None,
        env: dict[str, str] | None = None,
        use_db: bool = True,
    ) -> CliResult:
        full_env = dict(os.environ)
        if use_db:
            full_env["KGRAPH_DB"] = str(db_path) if db_url.startswith("sqlite") else db_url
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "kgraph.cli.main", *args],
            cwd=cwd or db_path.parent.parent,
            input=input,
            capture_output=True,
            text=not isinstance(input, bytes),
            env=full_env,
            timeout=120,
        )
        return CliResult(proc)

    return run
