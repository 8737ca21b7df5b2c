"""Build hook: compile the code graph's parse and resolve modules with mypyc.

A cold ``kgraph graph parse`` of a large repository is CPU-bound Python: the summariser's
walk over each file's syntax tree, and the resolver's value flow. Compiled by mypyc (from
the same, type-checked source) the resolver runs about a third fewer instructions.

Only a wheel is compiled (``pip install .``, ``pipx``, ``uv tool install``). An editable
install (``pip install -e .``) stays pure Python, so an edited module is never shadowed by
a stale compiled one. With no C compiler, or ``KGRAPH_PURE_PYTHON=1``, the wheel is pure
Python too: the same behaviour, slower on big graphs (``kgraph doctor`` tells which).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The modules compiled: the summariser and the resolver, hot in a parse, and the summary
# records both build and read (their factories run for every name of every file).
COMPILED = [
    f"kgraph/codegraph/{name}.py"
    for name in (
        "summary",
        "summary_codec",
        "parse_python",
        "python_definitions",
        "python_refs",
        "python_names",
        "python_bindings",
        "python_stores",
        "python_loops",
        "python_nodes",
        "python_elements",
        "pytest_fixtures",
        "spans",
        "memo",
        "summary_reader",
        "resolve",
        "scoping",
        "flow",
        "targets",
        "hierarchy",
        "imports",
        "build",
        "modules",
        "changes",
        "values",
        "refs",
        "packs",
    )
]
# mypyc type-checks the modules again. What they import from other packages is ``Any`` to
# it: a build need not install kgraph's dependencies, and finding the interpreter's own
# site-packages (torch, sqlalchemy) made a build take 4 minutes instead of seconds.
# ``mypy --strict`` over the installed project is the real check.
MYPY_ARGS = [
    "--config-file=",
    "--ignore-missing-imports",
    "--no-site-packages",
    "--follow-imports=silent",
]


def compile_extensions(root: Path, out: Path) -> list[Path]:
    """Compile :data:`COMPILED` under ``root``; returns the extension files, written
    under ``out`` at their paths in the package (``kgraph/codegraph/resolve.*.so``, and
    one shared library at the top)."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    here = Path.cwd()
    os.chdir(root)  # mypycify takes paths relative to the project
    try:
        with tempfile.TemporaryDirectory() as scratch:
            extensions = mypycify(
                [*MYPY_ARGS, *COMPILED],
                opt_level="2",  # -O3 ran no fewer instructions (README, Code graph)
                multi_file=True,  # a C file a module
                target_dir=str(Path(scratch) / "c"),
            )
            dist = Distribution({"name": "kgraph-compiled", "ext_modules": extensions})
            command: Any = dist.get_command_obj("build_ext")
            command.build_lib = str(out)
            command.build_temp = str(Path(scratch) / "o")
            command.ensure_finalized()
            command.run()
    finally:
        os.chdir(here)
    return sorted(p for p in out.rglob("*") if p.suffix in (".so", ".pyd"))


class CompileHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled modules to a (non-editable) wheel, tagged for this platform."""

    PLUGIN_NAME = "custom"
    _out: str | None = None  # the compiled files, until the wheel holds them

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("KGRAPH_PURE_PYTHON"):
            return
        self._out = tempfile.mkdtemp(prefix="kgraph-mypyc-")
        out = Path(self._out)
        try:
            built = compile_extensions(Path(self.root), out)
        except Exception as exc:  # no compiler, no headers: a pure-Python wheel still works
            print(
                f"kgraph: compiling the code graph with mypyc failed ({exc}); "
                "building a pure-Python wheel",
                file=sys.stderr,
            )
            return
        for path in built:
            build_data["force_include"][str(path)] = path.relative_to(out).as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._out is not None:
            shutil.rmtree(self._out, ignore_errors=True)
