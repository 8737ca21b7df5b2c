"""Names in scopes, for the :class:`~kgraph.codegraph.resolve.Resolver`: which bindings of
a name a use sees, and where the walk goes when its own scope has none.

Names follow LEGB: class bodies are skipped from nested scopes, ``global`` and
``nonlocal`` are honoured, and inside the scope of the use only the bindings made on or
before its line count (all of them, so both arms of an ``if`` are kept). Past the module,
each language has its last resort: Python's star imports and builtins, a Go package's
other files, Java's package and ``java.lang``, Rust's paths and prelude, JS's globals.
The resolver's cache keys follow the same rules (:func:`outer_scope`, :func:`line_marker`),
so they are kept here with the walk. Plain functions taking the resolver, as in
:mod:`.hierarchy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kgraph.codegraph.imports import module_attr
from kgraph.codegraph.langs.go_packages import package_lookup
from kgraph.codegraph.langs.java_packages import java_lookup
from kgraph.codegraph.langs.rust_modules import rust_lookup
from kgraph.codegraph.summary import Binding, Scope, Summary
from kgraph.codegraph.values import CONF_BUILTIN, CONF_LOCAL, JS_GLOBALS, PY_BUILTINS, Result

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver


def outer_scope(scopes: Mapping[str, Scope], scope: Scope) -> str:
    """Where the LEGB walk from a function goes once its own scope is passed: the parent,
    past class bodies (skipped from nested scopes) that declare no ``global``."""
    current = scope["parent"] or ""
    while current:
        parent = scopes.get(current)
        if parent is None or parent["kind"] != "class" or parent.get("globals"):
            break
        current = parent["parent"] or ""
    return current


def _before(bindings: list[Binding], line: int) -> list[Binding]:
    """The bindings visible at ``line`` (< 0: strictly before ``-line``, the right-hand side
    of ``x = x.y``); all of them but the line's own when none is."""
    if line < 0:
        found = [b for b in bindings if b.line < -line]
    else:
        found = [b for b in bindings if b.line <= line]
    return found or [b for b in bindings if b.line != abs(line)]


def line_marker(ref: str, line: int | None, bindings: list[Binding] | None) -> tuple[Any, ...]:
    """The part of a ref's cache key that depends on the line of its use: how many bindings
    of its head are visible there (the line itself when none is), and the line for refs
    with arguments (they are evaluated at the line too)."""
    marker: tuple[Any, ...] = ()
    if bindings and line is not None:
        if line < 0:
            marker = (sum(1 for b in bindings if b.line < -line), True)
        else:
            marker = (sum(1 for b in bindings if b.line <= line), False)
        if marker[0] == 0:
            marker = (*marker, abs(line))
    if "#" in ref:  # arguments are evaluated at the line too
        marker = (*marker, line)
    return marker


def lookup(
    resolver: Resolver, path: str, scope_name: str, name: str, line: int | None
) -> list[Result]:
    """LEGB lookup of ``name`` used in scope ``scope_name`` of ``path`` at ``line``."""
    summary = resolver.summary(path, name)
    if scope_name:
        resolver.note(path, scope_name)
    if summary is None:
        return []
    current = scope_name if scope_name in summary["scopes"] else ""
    return lookup_from(resolver, path, summary, current, name, line, True)


def lookup_from(
    resolver: Resolver,
    path: str,
    summary: Summary,
    current: str,
    name: str,
    line: int | None,
    first: bool,
) -> list[Result]:
    """The LEGB walk from scope ``current`` (``first``: it is the scope of the use)."""
    scopes = summary["scopes"]
    scope = scopes.get(current, scopes[""])
    while True:
        if name in scope.get("globals", ()):
            current, scope, first = "", scopes[""], False
        bindings = scope["names"].get(name)
        if (
            bindings
            and name not in scope.get("nonlocals", ())
            and (first or scope["kind"] != "class")
        ):
            if first and line is not None:
                bindings = _before(bindings, line)
                if not bindings:
                    return []
            if not first and current == "":
                return module_attr(resolver, path, name, local_only=True)
            return resolver.eval_bindings(path, current, bindings)
        if scope["kind"] == "module":
            break
        current = scope["parent"] or ""
        scope = scopes.get(current, scopes[""])
        first = False
    if summary["lang"] == "python":
        found = module_attr(resolver, path, name, local_only=False, star_only=True)
        if found:
            return found
        if name in PY_BUILTINS:
            return [(("builtin", name), CONF_BUILTIN, "builtin")]
    elif summary["lang"] == "go":  # the package's other files, then Go's builtins
        return package_lookup(resolver, path, name)
    elif summary["lang"] == "java":  # the package's types, imports on demand, java.lang
        return java_lookup(resolver, path, name)
    elif summary["lang"] == "rust":  # crate::, super::, globs, crates, the prelude
        return rust_lookup(resolver, path, name)
    elif name in JS_GLOBALS:
        return [(("builtin", name), CONF_BUILTIN, "builtin")]
    elif name == "exports":  # CommonJS: the module's own exports
        return [(("file", path), CONF_LOCAL, "local")]
    return []
