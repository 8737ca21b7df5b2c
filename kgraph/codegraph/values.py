"""What the resolver's evaluations yield: values, their confidences and resolution methods.

A *value* is what an expression may denote: a module (``("file", path)``, ``("dir",
folder)`` for namespace packages), a definition (``("def", path, qname)``: function, method
or class), an instance of a class (``("inst", path, qname)``), an external dotted name
(``("ext", "os.path")``), a builtin (``("builtin", "len")``), a literal of a builtin type
(``("lit", "<str>")``) or a ``super()`` proxy (``("super", path, class qname, instance)``).
Every result carries a confidence and the resolution method of its weakest step.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any

Value = tuple[Any, ...]
Result = tuple[Value, float, str]

PY_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_"))
PY_BUILTIN_TYPES = frozenset(n for n in PY_BUILTINS if isinstance(getattr(builtins, n), type))
JS_GLOBALS = frozenset(
    {
        "console",
        "Math",
        "JSON",
        "Object",
        "Array",
        "String",
        "Number",
        "Boolean",
        "Promise",
        "Date",
        "RegExp",
        "Error",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "Symbol",
        "Reflect",
        "Proxy",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "setTimeout",
        "clearTimeout",
        "setInterval",
        "clearInterval",
        "fetch",
        "require",
        "process",
        "Buffer",
        "document",
        "window",
        "globalThis",
        "structuredClone",
        "encodeURIComponent",
        "decodeURIComponent",
        "URL",
        "BigInt",
    }
)

CONF_LOCAL, CONF_IMPORT, CONF_BUILTIN, CONF_EXTERNAL = 1.0, 0.95, 0.95, 0.9
CONF_SELF, CONF_INFERRED = 0.9, 0.8
_MAX_VALUES = 12


def weaken(results: Iterable[Result], confidence: float, method: str) -> list[Result]:
    return [(v, c, m) if c <= confidence else (v, confidence, method) for v, c, m in results]


def unique(results: list[Result]) -> list[Result]:
    """Distinct values (best confidence kept), at most _MAX_VALUES of them: an expression
    that may denote more than that is, for a call graph, unknown."""
    if len(results) < 2:
        return results
    best: dict[Value, Result] = {}
    for result in results:
        old = best.get(result[0])
        if old is None or result[1] > old[1]:
            best[result[0]] = result
    if len(best) > _MAX_VALUES:
        return []
    return list(best.values())
