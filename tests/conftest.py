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

import contextlib
import functools
import itertools
import json
import logging
import os
import subprocess
import sys
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
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
    """What a CLI run gave: ``returncode``, ``stdout``, ``stderr`` (bytes when the input was
    bytes, as ``subprocess.run`` gives) and ``json()``."""

    def __init__(self, returncode: int, stdout: Any, stderr: Any) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    @classmethod
    def of_process(cls, proc: subprocess.CompletedProcess[Any]) -> CliResult:
        return cls(proc.returncode, proc.stdout, proc.stderr)

    def json(self) -> object:
        return json.loads(self.stdout)


# --- CLI runs: in-process through Click's CliRunner, or a real process -----------------------

CLI_MODULES = frozenset({"kgraph", "kgraph.cli.main", "kgraph.cli.entry"})
_cli_runs = {"in-process": 0, "subprocess": 0}
_subprocess_runs_by_file: Counter[str] = Counter()
_current_test_file = ["(collection)"]


def _is_cli_command(args: Any) -> bool:
    """Whether a Popen argv runs the kgraph CLI: ``python [...] -m kgraph[.cli.main|.cli.entry]``
    or a ``kgraph`` executable."""
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    try:
        argv = [os.fsdecode(a) for a in args]
    except TypeError:
        return False
    if argv and os.path.basename(argv[0]) == "kgraph":
        return True
    return any(a == "-m" and b in CLI_MODULES for a, b in itertools.pairwise(argv))


def pytest_configure(config: pytest.Config) -> None:
    """Count CLI runs: every ``CliRunner.invoke`` (the fixture's and the tests' own) and every
    process started on the kgraph CLI (:func:`pytest_terminal_summary` prints the totals)."""
    from click.testing import CliRunner

    invoke = CliRunner.invoke
    popen_init = subprocess.Popen.__init__

    @functools.wraps(invoke)
    def counting_invoke(self: CliRunner, *args: Any, **kwargs: Any) -> Any:
        _cli_runs["in-process"] += 1
        return invoke(self, *args, **kwargs)

    @functools.wraps(popen_init)
    def counting_popen_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kw: Any) -> None:
        if _is_cli_command(args):
            _cli_runs["subprocess"] += 1
            _subprocess_runs_by_file[_current_test_file[0]] += 1
        popen_init(self, args, *rest, **kw)

    CliRunner.invoke = counting_invoke  # type: ignore[method-assign]
    subprocess.Popen.__init__ = counting_popen_init  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    _current_test_file[0] = item.nodeid.split("::")[0]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist a worker hands its counts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["cli_runs"] = dict(_cli_runs)
        output["cli_subprocess_by_file"] = dict(_subprocess_runs_by_file)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """The controller adds up its workers' counts (pytest-xdist)."""
    output = getattr(node, "workeroutput", {})
    for kind, count in output.get("cli_runs", {}).items():
        _cli_runs[kind] += count
    _subprocess_runs_by_file.update(output.get("cli_subprocess_by_file", {}))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    terminalreporter.write_line(
        f"CLI runs: {_cli_runs['in-process']} in-process (CliRunner), "
        f"{_cli_runs['subprocess']} in subprocesses"
    )
    if config.get_verbosity() >= 0 and _subprocess_runs_by_file:  # -q is in addopts: add -v
        by_file = ", ".join(f"{n} {f}" for f, n in _subprocess_runs_by_file.most_common())
        terminalreporter.write_line(f"CLI subprocess runs by file: {by_file}")


def _cli_env(
    db_path: Path, db_url: str, use_db: bool, env: dict[str, str] | None
) -> dict[str, str]:
    """The variables a CLI run gets on top of the test's environment."""
    extra = {}
    if use_db:
        extra["KGRAPH_DB"] = str(db_path) if db_url.startswith("sqlite") else db_url
    extra.update(env or {})
    return extra


def _cli_loggers() -> list[logging.Logger]:
    return [logging.getLogger()] + [
        logger
        for name, logger in logging.root.manager.loggerDict.items()
        if name.split(".")[0] == "kgraph" and isinstance(logger, logging.Logger)
    ]


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextlib.contextmanager
def _process_state(argv: list[str], cwd: Path) -> Iterator[None]:
    """What a fresh ``python -m kgraph.cli.main`` process would have, for one in-process run:
    its cwd and argv, Python's default warning filters (warnings shown on stderr) and an
    ``os._exit`` that ends the command (not pytest) with its code. Afterwards the cwd, argv
    and environment are restored, and log handlers the command attached (to a file, or to
    the runner's stream, closed after the call) are closed."""
    handlers = {id(logger): list(logger.handlers) for logger in _cli_loggers()}
    saved_env = dict(os.environ)
    saved_argv = sys.argv
    real_exit = os._exit
    pid = os.getpid()

    def exit_command(code: int) -> NoReturn:
        if os.getpid() != pid:  # a forked child (a parse worker) exits for real
            real_exit(code)
        raise click.exceptions.Exit(code)

    sys.argv = argv
    os._exit = exit_command  # type: ignore[assignment]
    try:
        with contextlib.chdir(cwd), warnings.catch_warnings():
            warnings.resetwarnings()
            for category in (
                DeprecationWarning,
                PendingDeprecationWarning,
                ImportWarning,
                ResourceWarning,
            ):
                warnings.simplefilter("ignore", category)
            warnings.showwarning = _show_warning
            yield
    finally:
        os._exit = real_exit
        sys.argv = saved_argv
        if dict(os.environ) != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)
        for logger in _cli_loggers():
            for handler in list(logger.handlers):
                if handler not in handlers.get(id(logger), ()):
                    logger.removeHandler(handler)
                    handler.close()


def invoke_cli(
    args: Sequence[str],
    *,
    cwd: Path,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
) -> CliResult:
    """Run ``kgraph ARGS`` in this process as ``python -m kgraph.cli.main ARGS`` would run it:
    Click in standalone mode, prog name ``kgraph``, stdin from ``input`` (empty without), the
    given cwd and extra environment. An exception that escapes the CLI is what the process
    would show: exit 1 and the traceback on stderr. Output is text, or bytes when ``input`` is
    bytes (as with ``subprocess.run``)."""
    from click.testing import CliRunner

    from kgraph.cli import main as cli_main

    runner = CliRunner()
    argv = [str(Path(cli_main.__file__)), *args]
    with _process_state(argv, cwd):
        result = runner.invoke(cli_main.cli, list(args), input=input, env=env, prog_name="kgraph")
    stdout, stderr = result.stdout_bytes, result.stderr_bytes
    exception = result.exception
    if isinstance(exception, SystemExit):
        if not isinstance(exception.code, int | None):  # sys.exit("message"): on stderr
            message = f"{exception.code}\n".encode()
            stdout = stdout.removesuffix(message)
            stderr += message
    elif exception is not None:
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info)).encode()
    if isinstance(input, bytes):
        return CliResult(result.exit_code, stdout, stderr)
    return CliResult(result.exit_code, _text(stdout), _text(stderr))


def _text(data: bytes) -> str:
    """Bytes a process wrote, as ``subprocess.run(text=True)`` reads them."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def run_cli_process(
    args: Sequence[str],
    *,
    cwd: Path,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    python_args: Sequence[str] = (),
) -> CliResult:
    """Run ``python [PYTHON_ARGS] -m kgraph.cli.main ARGS`` in a subprocess, the test's
    environment plus ``env``."""
    proc = subprocess.run(
        [sys.executable, *python_args, "-m", "kgraph.cli.main", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=not isinstance(input, bytes),
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return CliResult.of_process(proc)


@pytest.fixture
def run_kgraph(db_path: Path, db_url: str) -> Callable[..., CliResult]:
    """Run the ``kgraph`` CLI in-process (Click's CliRunner, see :func:`invoke_cli`) against
    the temp database.

    ``run_kgraph(*args, cwd=None, input=None, env=None, use_db=True)``: ``cwd`` defaults to
    the test's tmp_path; ``env`` adds variables for this call only. A test about the process
    itself uses ``run_kgraph_process``. ``KGRAPH_TESTS_CLI=process pytest ...`` runs these
    calls in subprocesses too, to check that both ways agree.
    """
    in_process = os.environ.get("KGRAPH_TESTS_CLI", "in-process") != "process"

    def run(
        *args: str,
        cwd: Path | None = None,
        input: str | bytes | None = None,
        env: dict[str, str] | None = None,
        use_db: bool = True,
    ) -> CliResult:
        runner = invoke_cli if in_process else run_cli_process
        return runner(
            args,
            cwd=cwd or db_path.parent.parent,
            input=input,
            env=_cli_env(db_path, db_url, use_db, env),
        )

    return run


@pytest.fixture
def run_kgraph_process(db_path: Path, db_url: str) -> Callable[..., CliResult]:
    """Run the real CLI, ``python [PYTHON_ARGS] -m kgraph.cli.main ARGS``, in a subprocess
    against the temp database: for a test about the process (an import budget, a fresh
    interpreter, signals). Same options as ``run_kgraph``, and ``python_args``.
    """

    def run(
        *args: str,
        cwd: Path | None = None,
        input: str | bytes | None = None,
        env: dict[str, str] | None = None,
        use_db: bool = True,
        python_args: Sequence[str] = (),
    ) -> CliResult:
        return run_cli_process(
            args,
            cwd=cwd or db_path.parent.parent,
            input=input,
            env=_cli_env(db_path, db_url, use_db, env),
            python_args=python_args,
        )

    return run
