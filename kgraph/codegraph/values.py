"""What the resolver's evaluations yield: values, their confidences and resolution methods.

A *value* is a tuple naming what an expression may denote, its kind first:

=============================================  ==================================================
``("file", path)``, ``("dir", folder)``        a module (a folder: a namespace package)
``("def", path, qname)``                       a function, method, lambda or class
``("inst", path, qname)``                      an instance of a class of the repository
``("ext", dotted)``, ``("extinst", dotted)``   an external name; an instance of an external class
``("builtin", name)``, ``("lit", "<str>")``    a builtin; a value of a builtin type
``("super", path, class, instance)``           a ``super()`` proxy
``("param", path, function, position, ops)``   what callers pass to a parameter, followed
                                               only where it is called (``ops``: the
                                               subscripts and iterations applied since:
                                               see :mod:`.flow`)
``("pack", path, function, position, ops)``    a ``*args``/``**kwargs`` parameter, likewise
``("cont", path, scope, index)``               a literal (or comprehension) of the file
``("gen", path, function)``                    a generator a generator function returned
``("view", kind, value)``, ``("pair", value)``  ``d.values()``/``d.items()``/``enumerate(x)``,
                                               and one item of items/enumerate
``("cmethod", name, value)``                   ``d.get`` etc. of a literal
=============================================  ==================================================

Every result carries a confidence and the resolution method of its weakest step.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any, Final

Value = tuple[Any, ...]
Result = tuple[Value, float, str]

PY_BUILTINS: Final = frozenset(n for n in dir(builtins) if not n.startswith("_"))
PY_BUILTIN_TYPES: Final = frozenset(
    n for n in PY_BUILTINS if isinstance(getattr(builtins, n), type)
)
JS_GLOBALS: Final = frozenset(
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
# Values that are not code: a call graph has no node for them.
PLAIN_VALUES: Final = frozenset({"lit", "cont", "gen", "view", "pair", "cmethod", "pack"})
_MAX_VALUES: Final = 12


def weaken(results: Iterable[Result], confidence: float, method: str) -> list[Result]:
    # Results already as weak are kept as they are (no tuple rebuilt).
    return [r if r[1] <= confidence else (r[0], confidence, method) for r in results]


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
