"""The wheel ships the migrations: a non-editable install creates a database anywhere."""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from kgraph.db.schema_version import HEAD_REVISION
from tests.conftest import PROJECT_ROOT


@pytest.mark.slow
def test_wheel_install_creates_database_outside_source_tree(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(PROJECT_ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("kgraph-*.whl"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # Dependencies come from the test interpreter's site-packages; kgraph itself from the wheel.
    venv_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    deps = {sysconfig.get_paths()["purelib"], *site.getsitepackages()}
    (venv_site / "zz_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")

    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    code = (
        "import kgraph, sqlite3\n"
        "from kgraph.db import open_database\n"
        "from kgraph.db.migrate import migrations_dir\n"
        "print(kgraph.__file__)\n"
        "print(migrations_dir())\n"
        "open_database('sqlite:///new.db').close()\n"
        "c = sqlite3.connect('new.db')\n"
        "print(c.execute('select version_num from alembic_version').fetchone()[0])\n"
    )
    out = subprocess.run(
        [str(python), "-c", code], cwd=workdir, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0].startswith(str(venv_site))
    assert out[1] == str(venv_site / "kgraph" / "_migrations")
    assert out[2] == HEAD_REVISION
    # The console script works from the installed wheel too.
    cli = subprocess.run(
        [
            str(venv / "bin" / "kgraph"),
            "--db",
            str(workdir / "cli.db"),
            "workflow",
            "list",
            "--json",
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == "[]"
