"""Import rules, checked on the source (an import-linter contract, as a test):

1. **Layers import only downward**: the faces (cli, mcp, hooks) on top, then setup > viz > api >
   recall > capture > knowledge > checkpoint > codegraph > transcript > embeddings >
   runtime > db, with the base modules (errors, config, redact, jsontext, limits, digest)
   below them all.
2. **The CLI, the MCP server and the API use only the public surface** of the packages
   below them: ``from kgraph.<package> import name`` with ``name`` in that package's
   ``__all__`` — never a submodule (``kgraph.knowledge.store``), so any module behind a
   package's ``__all__`` can be renamed or split without breaking them.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kgraph"
LAYERS = (
    "cli",
    "mcp",
    "hooks",
    "setup",
    "viz",
    "api",
    "recall",
    "capture",
    "knowledge",
    "checkpoint",
    "codegraph",
    "transcript",
    "embeddings",
    "runtime",
    "db",
)
BASE = ("errors", "config", "redact", "lazy", "jsontext", "limits", "digest", "tools")
PUBLIC_ONLY = ("cli", "mcp", "api")
# What ``from kgraph import X`` means, by layer.
TOP_LEVEL = {"__version__": "errors", "open": "api", "Project": "api"}


def imports(package: str) -> Iterator[tuple[Path, int, str, tuple[str, ...]]]:
    """(file, line, imported kgraph module, names) for every import in ``package``."""
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == "kgraph" or node.module.startswith("kgraph."):
                    yield path, node.lineno, node.module, tuple(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("kgraph."):
                        yield path, node.lineno, alias.name, ()


def target_of(module: str, names: tuple[str, ...]) -> list[str]:
    parts = module.split(".")
    if len(parts) > 1:
        return [parts[1]]
    return [TOP_LEVEL.get(n, n if n in LAYERS + BASE else "errors") for n in names]


@pytest.mark.parametrize("package", LAYERS)
def test_layers_import_only_downward(package: str) -> None:
    rank = LAYERS.index(package)
    wrong = []
    for path, line, module, names in imports(package):
        for target in target_of(module, names):
            if target == package or target in BASE:
                continue
            if target not in LAYERS or LAYERS.index(target) <= rank:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {module} ({target})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", PUBLIC_ONLY)
def test_the_cli_mcp_and_api_use_only_public_names(package: str) -> None:
    wrong = []
    for path, line, module, names in imports(package):
        parts = module.split(".")
        where = f"{path.relative_to(PACKAGE)}:{line}"
        if len(parts) > 1 and parts[1] == package:
            continue  # its own modules
        if len(parts) > 2 and parts[1] not in BASE:
            wrong.append(f"{where} imports the submodule {module}")
            continue
        if not names:
            wrong.append(f"{where}: import {module} (use from ... import name)")
            continue
        exported = importlib.import_module(module)
        public = getattr(exported, "__all__", None)
        for name in names:
            if public is not None:
                ok = name in public
            else:  # a base module without __all__: its non-underscore names
                ok = not name.startswith("_") and hasattr(exported, name)
            if not ok and not (module == "kgraph" and name in LAYERS):
                wrong.append(f"{where} imports {module}.{name}, which is not in its __all__")
    assert not wrong, "\n".join(wrong)
