"""What subscripting, iterating and raising a value gives, for the
:class:`~kgraph.codegraph.resolve.Resolver`.

A literal's items (``<#N>``) are its own refs plus what the file stores into it
(``d["k"] = f``, ``l.append(f)``); a constant key picks the matching items, an unknown key
or an appended item matches any. Iterating an instance follows the iteration protocol
(``__iter__``, then the iterator's ``__next__``; an ``__iter__`` that yields is a
generator); a generator gives what its function yields; ``d.items()`` and ``enumerate(x)``
give pairs whose second item is the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgraph.codegraph import flow
from kgraph.codegraph.hierarchy import class_member
from kgraph.codegraph.refs import ITERATE, key_op
from kgraph.codegraph.summary import Container
from kgraph.codegraph.values import (
    CONF_EXTERNAL,
    CONF_INFERRED,
    CONF_LOCAL,
    Result,
    Value,
    unique,
    weaken,
)

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

ANY = object()  # iteration: every item, whatever its key
Key = str | int | None


def raised(value: Value) -> list[Result]:
    """``raise X``: a class is instantiated (an external one too), anything else raised as
    it is. Also Go's ``T(!)``: an instance of the type ``T``."""
    if value[0] == "def":
        return [(("inst", value[1], value[2]), CONF_INFERRED, "inferred")]
    if value[0] == "ext":
        return [(("extinst", value[1]), CONF_EXTERNAL, "external")]
    return [(value, CONF_LOCAL, "local")]


def subscript(resolver: Resolver, value: Value, key: Key) -> list[Result]:
    kind = value[0]
    if kind in ("param", "pack"):
        return flow.defer(value, key_op(key))
    if kind == "cont":
        return container_items(resolver, value, key)
    if kind == "pair":  # (key, value) of d.items() / (index, element) of enumerate(x)
        return elements_of(resolver, value[1]) if key == 1 else []
    if kind == "slice":
        if isinstance(key, int) and key >= 0:
            return subscript(resolver, value[1], value[2] + key)
        return iterate(resolver, value)
    return []


def sliced(resolver: Resolver, value: Value, start: int) -> list[Result]:
    """``x[start:]`` (what ``a, *rest = x`` binds to ``rest``). A slice of a slice is one
    slice of the literal (a negative start counts as 0: its end is not known), so a
    value never nests slices, however often a loop slices it again."""
    if value[0] in ("param", "pack"):
        return flow.defer(value, f"[{start}:]")
    if value[0] == "cont":
        return [(("slice", value, start), CONF_LOCAL, "literal")]
    if value[0] == "slice":
        begin = max(value[2], 0) + max(start, 0)
        return [(("slice", value[1], begin), CONF_LOCAL, "literal")]
    return []


def iterate(resolver: Resolver, value: Value) -> list[Result]:
    """An element of iterating ``value``."""
    kind = value[0]
    if kind in ("param", "pack"):
        return flow.defer(value, ITERATE)
    if kind == "cont":
        return container_items(resolver, value, ANY)
    if kind == "view":
        if value[1] == "values":
            return elements_of(resolver, value[2])
        if value[1] in ("items", "enumerate"):
            return [(("pair", value[2]), CONF_LOCAL, "literal")]
        return []
    if kind == "gen":
        return yielded(resolver, value[1], value[2])
    if kind == "inst":
        return _protocol(resolver, value)
    if kind == "slice":
        base, start = value[1], value[2]
        if base[0] == "cont":
            return container_items(resolver, base, ANY, start=start)
        return iterate(resolver, base)
    return []


def elements_of(resolver: Resolver, value: Value) -> list[Result]:
    """The values held by a literal (a dict's values), generator or iterable instance."""
    if value[0] == "cont":
        return container_items(resolver, value, ANY, values=True)
    return iterate(resolver, value)


def _protocol(resolver: Resolver, value: Value) -> list[Result]:
    """``for x in obj``: ``obj.__iter__()``, and what the iterator's ``__next__`` returns
    (an ``__iter__`` that yields is a generator: its yields)."""

    def compute() -> list[Result]:
        out: list[Result] = []
        for method, _c, _m in class_member(resolver, value[1], value[2], "__iter__", True):
            if method[0] != "def":
                continue
            for iterator, _c2, _m2 in flow.call_result(resolver, method, None, bound=True):
                if iterator[0] == "inst":
                    for step, _c3, _m3 in class_member(
                        resolver, iterator[1], iterator[2], "__next__", True
                    ):
                        if step[0] == "def":
                            out.extend(flow.call_result(resolver, step, None, bound=True))
                elif iterator != value:
                    out.extend(iterate(resolver, iterator))
        return weaken(unique(out), CONF_INFERRED, "element")

    return resolver.cached(("iterate", value), compute)


def yielded(resolver: Resolver, path: str, qname: str) -> list[Result]:
    """What a generator function yields (``yield from g``: what ``g`` yields)."""

    def compute() -> list[Result]:
        scope = resolver.scope(path, qname)
        if scope is None:
            return []
        found = resolver.eval_bindings(path, qname, scope.get("yields", []))
        return weaken(found, CONF_INFERRED, "element")

    return resolver.cached(("yields", path, qname), compute)


def container_items(
    resolver: Resolver, value: Value, key: object, values: bool = False, start: int = 0
) -> list[Result]:
    """The items of literal ``value`` under ``key`` (:data:`ANY`: all of them; a dict
    iterated gives its keys, which are not followed, unless ``values``)."""
    _kind, path, scope_name, index = value
    scope = resolver.scope(path, scope_name)
    containers = scope.get("containers", []) if scope is not None else []
    if index >= len(containers):
        return []
    container = containers[index]
    if key is ANY and container.kind == "dict" and not values:
        return []
    results: list[Result] = []
    for item_key, ref in zip(container.keys, container.refs, strict=True):
        if _matches(container, item_key, key, start):
            results.extend(resolver.eval_ref(path, scope_name, ref, container.line))
    for item_key, store_path, store_scope, ref, line in stored(resolver, value):
        if item_key is None or _matches(container, item_key, key, start):
            results.extend(resolver.eval_ref(store_path, store_scope, ref, line))
    return weaken(unique(results), CONF_INFERRED, "element")


def _matches(container: Container, item_key: Key, key: object, start: int) -> bool:
    if key is ANY:
        return not isinstance(item_key, int) or item_key >= start
    if item_key is None or key is None:
        return True
    if isinstance(key, int) and container.kind != "dict":
        return item_key == key + start
    return item_key == key


Stored = tuple[Key, str, str, str, int]  # (key, path, scope, value ref, line)


def stored(resolver: Resolver, value: Value) -> list[Stored]:
    """The stores of the literal's file into it, found by evaluating every store target of
    the file once (cached per file, with what that read)."""
    path = value[1]
    cut: dict[Value, list[Stored]] = {}
    stores = resolver.memo(("stores", path), lambda: _stores_of(resolver, path), cut)
    return stores.get(value, [])


def _stores_of(resolver: Resolver, path: str) -> dict[Value, list[Stored]]:
    summary = resolver.summary(path, "=")
    found: dict[Value, list[Stored]] = {}
    if summary is None:
        return found
    for scope_name, scope in summary["scopes"].items():
        for store in scope.get("stores", ()):
            resolver.note(path, scope_name or "=")
            for target, _c, _m in resolver.eval_ref(path, scope_name, store.target, store.line):
                if target[0] == "cont":
                    entry = (store.key, path, scope_name, store.value, store.line)
                    found.setdefault(target, []).append(entry)
    return found
