"""The public API, listed: every name callers may use, with its signature.

``public_api.json`` beside this file is the listing. The test fails when a listed name
disappears or its signature changes (a break for callers), and when a package exports a
name the listing lacks (so the listing stays complete). After a deliberate change,
regenerate it and review the diff:

    python -m tests.api.test_public_api
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

SNAPSHOT = Path(__file__).with_name("public_api.json")
MODULES = (
    "kgraph",
    "kgraph.api",
    "kgraph.capture",
    "kgraph.checkpoint",
    "kgraph.codegraph",
    "kgraph.db",
    "kgraph.embeddings",
    "kgraph.hooks",
    "kgraph.knowledge",
    "kgraph.mcp",
    "kgraph.recall",
    "kgraph.runtime",
    "kgraph.setup",
    "kgraph.transcript",
    "kgraph.viz",
)


def _signature(obj: Any) -> str:
    try:
        text = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    return re.sub(r" at 0x[0-9a-f]+", "", text)  # default values' reprs hold addresses


def describe(obj: Any) -> Any:
    """A JSON description of one public object: its kind and signature(s)."""
    if inspect.isclass(obj):
        members: dict[str, str] = {}
        for name, value in vars(obj).items():
            if name.startswith("_"):
                continue
            if isinstance(value, property):
                members[name] = "property"
            elif isinstance(value, staticmethod | classmethod):
                members[name] = _signature(value.__func__)
            elif inspect.isfunction(value):
                members[name] = _signature(value)
        return {"class": _signature(obj), "members": members}
    if callable(obj):
        return {"def": _signature(obj)}
    return {"value": type(obj).__name__}


def listing() -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = sorted(getattr(module, "__all__", ()))
        result[module_name] = {name: describe(getattr(module, name)) for name in names}
    return result


EXPECTED: dict[str, dict[str, Any]] = json.loads(SNAPSHOT.read_text()) if SNAPSHOT.exists() else {}
HOW = "if deliberate: python -m tests.api.test_public_api, and review the diff"


@pytest.mark.parametrize("module_name", MODULES)
def test_public_names_and_signatures_are_stable(module_name: str) -> None:
    current = listing()[module_name]
    expected = EXPECTED.get(module_name, {})
    gone = sorted(set(expected) - set(current))
    assert not gone, f"{module_name} no longer exports {gone} ({HOW})"
    changed = sorted(n for n in expected if current[n] != expected[n])
    assert not changed, f"{module_name}: signatures changed: {changed} ({HOW})"
    unlisted = sorted(set(current) - set(expected))
    assert not unlisted, f"{module_name} exports {unlisted}, missing from the listing ({HOW})"


def test_the_top_level_api_is_small_and_lazy() -> None:
    import kgraph

    assert {"open", "Project", "KgraphError", "__version__"} <= set(kgraph.__all__)
    assert len(kgraph.__all__) <= 15
    assert kgraph.open is importlib.import_module("kgraph.api").open


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(listing(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT}")
