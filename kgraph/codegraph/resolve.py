"""Static evaluation of names and expressions over the summaries of all files.

The :class:`Resolver` evaluates refs to values (see :mod:`kgraph.codegraph.values`), caching
its results along with what each one read. Names follow LEGB (class bodies are skipped from
nested functions; ``global``/``nonlocal`` honoured); inside the scope of the use, only
bindings made on or before the line of the use count (all of them, so both arms of an
``if`` are kept). Modules follow ``import``s, star imports (``__all__``), ``__init__``
re-exports and submodules (:mod:`kgraph.codegraph.imports`). Attributes of classes and
instances follow the C3 MRO, instance attributes (``self.x = Cls()``) and annotations
(:mod:`kgraph.codegraph.hierarchy`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from functools import partial
from typing import Any

from kgraph.codegraph.hierarchy import class_member
from kgraph.codegraph.imports import from_import, import_module, module_attr
from kgraph.codegraph.modules import ModuleIndex
from kgraph.codegraph.summary import Summary, split_ref
from kgraph.codegraph.values import (
    CONF_BUILTIN,
    CONF_EXTERNAL,
    CONF_IMPORT,
    CONF_INFERRED,
    CONF_LOCAL,
    CONF_SELF,
    JS_GLOBALS,
    PY_BUILTIN_TYPES,
    PY_BUILTINS,
    Result,
    Value,
    unique,
    weaken,
)

Read = tuple[str, str]  # (file, top-level name) an evaluation depended on
# The "file" of a read recording an import that matched no file (the name is its key):
# kept with the other reads, so a cache hit replays it like any other read.
MISSING_IMPORT = "\0missing"
Reads = AbstractSet[Read]  # a finished computation's reads (never changed once cached)
_NO_READS: Reads = frozenset()

_MAX_DEPTH = 40
_MAX_EXTERNAL_DOTS = 5


# Heads whose meaning depends on the function they are used in (``super()`` finds its
# class from there; TS/JS ``this``).
_SCOPED_HEADS = frozenset({"super", "this"})


def _outer_scope(scopes: dict[str, Any], scope: dict[str, Any]) -> str:
    """Where the LEGB walk from a function goes once its own scope is passed: the parent,
    past class bodies (skipped from nested scopes) that declare no ``global``."""
    current = scope["p"] or ""
    while current:
        parent = scopes.get(current)
        if parent is None or parent["k"] != "class" or parent.get("g"):
            break
        current = parent["p"] or ""
    return current


class Resolver:
    """Evaluates refs against summaries loaded on demand by ``load(path)``.

    ``consulted`` (per :meth:`begin`) collects every (file, top-level name) an evaluation
    read, cached work included: a file needs re-resolving when one of the names it read in
    another file changes (``""``: only the file's existence; ``"*"``: its star imports).
    Imports that matched no file are reads of :data:`MISSING_IMPORT` (see
    :meth:`note_missing`), so a file whose resolution reused cached work through such an
    import still learns of it, and is re-resolved when a new file provides it.
    """

    def __init__(self, index: ModuleIndex, load: Callable[[str], Summary | None]) -> None:
        self.index = index
        self._load = load
        self._summaries: dict[str, Summary | None] = {}
        self._cache: dict[tuple[Any, ...], tuple[list[Result], Reads]] = {}
        # hierarchy.mro's cache (linearisations, not results), with the reads they made.
        self._mro: dict[tuple[str, str], tuple[list[tuple[str, str]], Reads]] = {}
        # What was read since begin(): a set per computation in progress, the file's at the
        # bottom. A finished computation's set is cached with its result and merged into its
        # caller's; a cache hit merges the cached set (set-to-set merges reuse the stored
        # hashes, so replaying big read sets costs little).
        self._reads: list[set[Read]] = [set()]
        self._active: set[tuple[Any, ...]] = set()

    # -- bookkeeping --------------------------------------------------------------------
    def begin(self) -> None:
        self._reads = [set()]

    @property
    def consulted(self) -> set[Read]:
        return self._reads[0]

    def note(self, path: str, name: str) -> None:
        """Record that the current evaluation depends on ``name`` of file ``path``."""
        self._reads[-1].add((path, name.partition(".")[0]))

    def note_missing(self, key: str) -> None:
        """Record that the current evaluation met an import of ``key`` that matched no file."""
        self._reads[-1].add((MISSING_IMPORT, key))

    def replay(self, reads: Reads) -> None:
        """Record the reads of a cached computation being reused."""
        if reads:
            self._reads[-1] |= reads

    def start_reads(self) -> None:
        """Open the read set of a computation (paired with :meth:`finish_reads`)."""
        self._reads.append(set())

    def finish_reads(self) -> Reads:
        """Close the innermost computation's read set (kept, never changed again), merging
        it into its caller's."""
        reads = self._reads.pop()
        if not reads:
            return _NO_READS
        self._reads[-1] |= reads
        return reads

    def summary(self, path: str, name: str | None = None) -> Summary | None:
        """A file's summary; ``name``: the (qualified) name being read, for dependencies
        (None: nothing that can change, such as the file's language)."""
        if name is not None:
            self._reads[-1].add((path, name.partition(".")[0]))
        try:
            return self._summaries[path]
        except KeyError:
            found = self._summaries[path] = self._load(path)
            return found

    def forget(self, paths: Iterable[str]) -> None:
        """Drop cached summaries and results (after files changed)."""
        for path in paths:
            self._summaries.pop(path, None)
        self._cache.clear()
        self._mro.clear()

    def _cached(self, key: tuple[Any, ...], compute: Callable[[], list[Result]]) -> list[Result]:
        """``compute()``, memoised under ``key`` with the reads it made (replayed into the
        caller's reads on a hit); ``[]`` for a key already being computed (a cycle) or too
        deep a chain."""
        hit = self._cache.get(key)
        if hit is not None:
            if hit[1]:
                self._reads[-1] |= hit[1]
            return hit[0]
        active = self._active
        if key in active or len(active) > _MAX_DEPTH:
            return []
        active.add(key)
        stack = self._reads
        stack.append(set())
        try:
            result = compute()
        finally:
            active.discard(key)
            reads = stack.pop()  # finish_reads(), inline: this is the resolver's hottest path
            if reads:
                stack[-1] |= reads
        self._cache[key] = (result, reads or _NO_READS)
        return result

    # -- names --------------------------------------------------------------------------
    def lookup(self, path: str, scope_name: str, name: str, line: int | None) -> list[Result]:
        """LEGB lookup of ``name`` used in scope ``scope_name`` of ``path`` at ``line``."""
        summary = self.summary(path, name)
        if scope_name:
            self.note(path, scope_name)
        if summary is None:
            return []
        current = scope_name if scope_name in summary["scopes"] else ""
        return self._lookup_from(path, summary, current, name, line, True)

    def _lookup_from(
        self, path: str, summary: Summary, current: str, name: str, line: int | None, first: bool
    ) -> list[Result]:
        """The LEGB walk from scope ``current`` (``first``: it is the scope of the use)."""
        scopes = summary["scopes"]
        scope = scopes.get(current, scopes[""])
        while True:
            if name in scope.get("g", ()):
                current, scope, first = "", scopes[""], False
            bindings = scope["b"].get(name)
            if bindings and name not in scope.get("n", ()) and (first or scope["k"] != "class"):
                if first and line is not None:
                    # line < 0 is "strictly before -line": the right-hand side of `x = x.y`
                    before = (
                        [b for b in bindings if b[-1] < -line]
                        if line < 0
                        else [b for b in bindings if b[-1] <= line]
                    )
                    bindings = before or [b for b in bindings if b[-1] != abs(line)]
                    if not bindings:
                        return []
                if not first and current == "":
                    return module_attr(self, path, name, local_only=True)
                return self.eval_bindings(path, current, bindings)
            if scope["k"] == "module":
                break
            current = scope["p"] or ""
            scope = scopes.get(current, scopes[""])
            first = False
        if summary["lang"] == "python":
            found = module_attr(self, path, name, local_only=False, star_only=True)
            if found:
                return found
            if name in PY_BUILTINS:
                return [(("builtin", name), CONF_BUILTIN, "builtin")]
        elif name in JS_GLOBALS:
            return [(("builtin", name), CONF_BUILTIN, "builtin")]
        return []

    def eval_bindings(self, path: str, scope_name: str, bindings: list[Any]) -> list[Result]:
        results: list[Result] = []
        for binding in bindings:
            results.extend(self.eval_binding(path, scope_name, binding))
        return unique(results)

    def eval_binding(self, path: str, scope_name: str, binding: list[Any]) -> list[Result]:
        kind = binding[0]
        if kind == "def":
            return [(("def", path, binding[1]), CONF_LOCAL, "local")]
        if kind == "mod":
            return weaken(import_module(self, path, binding[1]), CONF_IMPORT, "import")
        if kind == "from":
            return from_import(self, path, binding[1], binding[2], binding[3])
        key: tuple[Any, ...]
        if kind == "val":
            key = ("val", path, scope_name, binding[1], binding[-1])
            return self._cached(
                key, lambda: self.eval_ref(path, scope_name, binding[1], -binding[-1])
            )
        if kind == "ann":
            key = ("ann", path, scope_name, binding[1])
            return self._cached(
                key, lambda: self._instances(self.eval_ref(path, scope_name, binding[1], None))
            )
        if kind == "param":
            return self._self_param(path, scope_name, binding[1])
        return []

    def _self_param(self, path: str, scope_name: str, index: int) -> list[Result]:
        summary = self.summary(path, scope_name)
        if summary is None or index != 0:
            return []
        scope = summary["scopes"].get(scope_name, {})
        parent = scope.get("p") or ""
        if scope.get("s") is None or summary["scopes"].get(parent, {}).get("k") != "class":
            return []
        kind = "def" if scope.get("m") == "class" else "inst"
        return [((kind, path, parent), CONF_SELF, "self")]

    def _instances(self, results: list[Result]) -> list[Result]:
        out: list[Result] = []
        for value, conf, method in results:
            if value[0] == "def" and self.def_kind(value) in ("class", "interface"):
                out.append((("inst", value[1], value[2]), min(conf, CONF_INFERRED), "inferred"))
            elif value[0] == "builtin" and value[1] in PY_BUILTIN_TYPES:
                out.append((("lit", f"<{value[1]}>"), conf, method))
        return out

    def def_kind(self, value: Value) -> str | None:
        summary = self.summary(value[1], value[2])
        info = summary["defs"].get(value[2]) if summary is not None else None
        return info["k"] if info is not None else None

    # -- expressions --------------------------------------------------------------------
    def eval_ref(self, path: str, scope_name: str, ref: str, line: int | None) -> list[Result]:
        """The values ``ref`` may denote in ``scope_name`` at ``line``, cached by what its
        first name can mean there: the bindings visible at ``line``; in a function that does
        not bind it, the enclosing scopes (shared by sibling functions: a third of all refs);
        for an unrebound ``self``/``cls``, the method's class (shared by its methods)."""
        head = split_ref(ref)[0][0]
        summary = self.summary(path, scope_name or head)
        if summary is None:
            return []
        scopes = summary["scopes"]
        scope = scopes.get(scope_name)
        bindings = scope["b"].get(head) if scope is not None else None
        key: tuple[Any, ...] | None = None
        compute: Callable[[], list[Result]]
        if scope is not None and scope["k"] == "function" and head not in _SCOPED_HEADS:
            if not bindings:
                if not (
                    head in scope.get("g", ()) or head in scope.get("n", ()) or head.startswith("<")
                ):
                    outer = _outer_scope(scopes, scope)
                    key = ("outer", path, outer, ref)
                    compute = partial(self._eval_ref, path, outer, ref, None, True)
            elif (
                scope.get("s") == head
                and scopes.get(scope["p"] or "", {}).get("k") == "class"
                and all(b[0] == "param" and b[1] == 0 for b in bindings)
            ):
                cls = scope["p"]
                kind = "def" if scope.get("m") == "class" else "inst"
                key = ("self", path, cls, kind, ref)
                compute = partial(self._eval_self_ref, path, cls, kind, ref)
        if key is None:
            key, compute = self._ref_at_line(path, scope_name, ref, line, bindings)
        hit = self._cache.get(key)
        if hit is not None:  # _cached's hit path, inline: most refs are met more than once
            if hit[1]:
                self._reads[-1] |= hit[1]
            return hit[0]
        return self._cached(key, compute)

    def _ref_at_line(
        self,
        path: str,
        scope_name: str,
        ref: str,
        line: int | None,
        bindings: list[Any] | None,
    ) -> tuple[tuple[Any, ...], Callable[[], list[Result]]]:
        """The cache key of ``ref`` by the bindings of its head visible at ``line``."""
        marker: tuple[Any, ...] = ()
        if bindings and line is not None:
            if line < 0:
                marker = (sum(1 for b in bindings if b[-1] < -line), True)
            else:
                marker = (sum(1 for b in bindings if b[-1] <= line), False)
            if marker[0] == 0:
                marker = (*marker, abs(line))
        return (
            ("ref", path, scope_name, ref, marker),
            partial(self._eval_ref, path, scope_name, ref, line),
        )

    def _eval_ref(
        self, path: str, scope_name: str, ref: str, line: int | None, outer: bool = False
    ) -> list[Result]:
        """Evaluate ``ref`` (``outer``: its head is looked up from the enclosing scope
        ``scope_name`` on, as for a name the function using it does not bind)."""
        parts = split_ref(ref)
        head = parts[0][0]
        if head == "?" or not head:
            return []
        values: list[Result]
        if head.startswith("<"):
            values = [(("lit", head), CONF_LOCAL, "literal")]
        elif head in _SCOPED_HEADS and self._lang(path) != "python":
            values = self._this(path, scope_name, head == "super")
        elif outer:
            summary = self.summary(path, head)
            values = (
                []
                if summary is None
                else self._lookup_from(path, summary, scope_name, head, None, False)
            )
        else:
            values = self.lookup(path, scope_name, head, line)
        return self._eval_chain(path, scope_name, parts, values)

    def _eval_self_ref(self, path: str, cls: str, kind: str, ref: str) -> list[Result]:
        """Evaluate ``ref`` whose head is the ``self`` (``kind`` "inst") or ``cls`` ("def")
        parameter of a method of class ``cls``."""
        parts = split_ref(ref)
        self.summary(path, parts[0][0])  # the read looking the parameter up would make
        values: list[Result] = [((kind, path, cls), CONF_SELF, "self")]
        return self._eval_chain(path, cls, parts, values)

    def _eval_chain(
        self, path: str, scope_name: str, parts: tuple[tuple[str, int], ...], values: list[Result]
    ) -> list[Result]:
        """Apply the calls and attributes of a ref's ``parts`` to its head's ``values``."""
        calls = parts[0][1]
        for _ in range(calls):
            values = self._flat(values, lambda v: self.call_result(v, path, scope_name))
        for name, calls in parts[1:]:
            if name == "?":
                return []
            values = self._flat(values, lambda v, n=name: self.attr(v, n))  # type: ignore[misc]
            for _ in range(calls):
                values = self._flat(values, lambda v: self.call_result(v, path, scope_name))
        return values

    def _lang(self, path: str) -> str:
        summary = self.summary(path)
        return summary["lang"] if summary is not None else "python"

    def _flat(self, values: list[Result], step: Callable[[Value], list[Result]]) -> list[Result]:
        out: list[Result] = []
        for value, conf, method in values:
            out.extend(weaken(step(value), conf, method))
        return unique(out)

    def enclosing_class(self, path: str, scope_name: str) -> tuple[str, bool] | None:
        """(class qname, inside an instance method) for a method scope, else None."""
        summary = self.summary(path, scope_name)
        if summary is None:
            return None
        scopes = summary["scopes"]
        current = scope_name
        while current in scopes and current:
            scope = scopes[current]
            parent = scope.get("p") or ""
            if scopes.get(parent, {}).get("k") == "class" and scope["k"] == "function":
                return parent, scope.get("m") != "class"
            if scope["k"] == "class":
                return current, False
            current = parent
        return None

    def _this(self, path: str, scope_name: str, is_super: bool) -> list[Result]:
        found = self.enclosing_class(path, scope_name)
        if found is None:
            return []
        cls, _instance = found
        if is_super:
            return [(("super", path, cls, True), CONF_SELF, "super-mro")]
        return [(("inst", path, cls), CONF_SELF, "self")]

    def call_result(self, value: Value, path: str, scope_name: str) -> list[Result]:
        kind = value[0]
        if kind == "def":
            def_kind = self.def_kind(value)
            if def_kind == "class":
                return [(("inst", value[1], value[2]), CONF_INFERRED, "inferred")]
            if def_kind in ("function", "method"):
                return self.returns(value[1], value[2])
            return []
        if kind == "builtin":
            if value[1] == "super":
                found = self.enclosing_class(path, scope_name)
                if found is None:
                    return []
                return [(("super", path, found[0], found[1]), CONF_SELF, "super-mro")]
            if value[1] in PY_BUILTIN_TYPES:
                return [(("lit", f"<{value[1]}>"), CONF_LOCAL, "literal")]
        return []

    def returns(self, path: str, qname: str) -> list[Result]:
        def compute() -> list[Result]:
            summary = self.summary(path, qname)
            scope = summary["scopes"].get(qname) if summary is not None else None
            if scope is None:
                return []
            results = self.eval_bindings(path, qname, scope.get("r", []))
            return weaken(results, CONF_INFERRED, "inferred")

        return self._cached(("returns", path, qname), compute)

    def attr(self, value: Value, name: str) -> list[Result]:
        kind = value[0]
        if kind == "file":
            return module_attr(self, value[1], name)
        if kind == "dir":
            sub = self.index.python_path(posixpath.join(value[1], name) if value[1] else name)
            if sub is None:
                return []
            self.note(sub.rstrip("/"), "")
            return [(("dir" if sub.endswith("/") else "file", sub.rstrip("/")), 1.0, "import")]
        if kind == "def":
            if self.def_kind(value) in ("class", "interface", "enum"):
                return class_member(self, value[1], value[2], name, instance=False)
            return []
        if kind == "inst":
            return class_member(self, value[1], value[2], name, instance=True)
        if kind == "super":
            return class_member(self, value[1], value[2], name, instance=value[3], skip_first=True)
        if kind == "ext":
            if value[1].count(".") >= _MAX_EXTERNAL_DOTS:
                return []
            return [(("ext", f"{value[1]}.{name}"), CONF_EXTERNAL, "external")]
        if kind == "builtin" and value[1] in JS_GLOBALS:  # console.log, Math.max: one level
            return [(("builtin", f"{value[1]}.{name}"), CONF_BUILTIN, "builtin")]
        return []
