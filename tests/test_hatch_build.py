"""The wheel's build hook (hatch_build.py): the modules it compiles with mypyc give the same
call graph as the pure-Python source, and every one of them is compiled. (~1 minute: the
compile is ~35 s.)"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCORE = [sys.executable, str(ROOT / "scripts" / "score_callgraph_cases.py"), "--json"]


def _hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _has_compiler() -> bool:
    return any(shutil.which(cc) for cc in (os.environ.get("CC", ""), "cc", "gcc") if cc)


@pytest.mark.skipif(not _has_compiler(), reason="no C compiler: the wheel is pure Python")
def test_compiled_modules_give_the_same_call_graph(tmp_path: Path) -> None:
    hook = _hook_module()
    site = tmp_path / "site"
    shutil.copytree(ROOT / "kgraph", site / "kgraph", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copytree(ROOT / "alembic", site / "alembic")  # the migrations, as in a checkout
    built = hook.compile_extensions(ROOT, site)

    compiled = {p.name.split(".")[0] for p in built if p.parent.name == "codegraph"}
    assert compiled == {Path(path).stem for path in hook.COMPILED}
    probe = subprocess.run(
        [sys.executable, "-c", "import kgraph.codegraph.resolve as r; print(r.__file__)"],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=tmp_path,  # not this checkout's folder, which `-c` puts first on sys.path
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().endswith(".so")

    pure = subprocess.run(SCORE, capture_output=True, text=True)
    fast = subprocess.run([*SCORE, "--code", str(site)], capture_output=True, text=True)
    assert (pure.returncode, fast.returncode) == (0, 0), pure.stderr + fast.stderr
    assert json.loads(fast.stdout) == json.loads(pure.stdout)
    assert json.loads(pure.stdout)["categories"]  # the cases were scored

    # Incremental runs read summaries back from the database (lazily decoded scopes, which
    # a compiled reader once bypassed): their tests, on the compiled modules.
    shutil.copytree(ROOT / "tests", site / "tests", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", site)
    tests = ["tests/codegraph/test_incremental.py", "tests/codegraph/test_indexer.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=site,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]
