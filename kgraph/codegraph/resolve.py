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
# kept in the same log, so a cache hit replays it like any other read.
MISSING_IMPORT = "\0missing"

_MAX_DEPTH = 40
_MAX_EXTERNAL_DOTS = 5


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
        self._cache: dict[tuple[Any, ...], tuple[list[Result], tuple[Read, ...]]] = {}
        # hierarchy.mro's cache (linearisations, not results), with the reads they made.
        self._mro: dict[tuple[str, str], tuple[list[tuple[str, str]], tuple[Read, ...]]] = {}
        # Every (file, top-level name) read since begin(), in order, duplicates included: a
        # computation's reads are the slice of the log it appended (cheaper than a stack of
        # sets); a cache hit appends the reads its computation made.
        self._log: list[Read] = []
        self._active: set[tuple[Any, ...]] = set()

    # -- bookkeeping --------------------------------------------------------------------
    def begin(self) -> None:
        self._log = []

    @property
    def consulted(self) -> set[Read]:
        return set(self._log)

    def note(self, path: str, name: str) -> None:
        """Record that the current evaluation depends on ``name`` of file ``path``."""
        self._log.append((path, name.partition(".")[0]))

    def note_missing(self, key: str) -> None:
        """Record that the current evaluation met an import of ``key`` that matched no file."""
        self._log.append((MISSING_IMPORT, key))

    def summary(self, path: str, name: str | None = None) -> Summary | None:
        """A file's summary; ``name``: the (qualified) name being read, for dependencies
        (None: nothing that can change, such as the file's language)."""
        if name is not None:
            self._log.append((path, name.partition(".")[0]))
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
        """``compute()``, memoised under ``key`` with the reads it made (replayed into the log
        on a hit); ``[]`` for a key already being computed (a cycle) or too deep a chain."""
        hit = self._cache.get(key)
        if hit is not None:
            if hit[1]:
                self._log.extend(hit[1])
            return hit[0]
        active = self._active
        if key in active or len(active) > _MAX_DEPTH:
            return []
        active.add(key)
        start = len(self._log)
        try:
            result = compute()
        finally:
            active.discard(key)
        reads = self._log[start:]
        self._cache[key] = (result, tuple(set(reads)) if len(reads) > 1 else tuple(reads))
        return result

    # -- names --------------------------------------------------------------------------
    def lookup(self, path: str, scope_name: str, name: str, line: int | None) -> list[Result]:
        """LEGB lookup of ``name`` used in scope ``scope_name`` of ``path`` at ``line``."""
        summary = self.summary(path, name)
        if scope_name:
            self.note(path, scope_name)
        if summary is None:
            return []
        scopes = summary["scopes"]
        current = scope_name if scope_name in scopes else ""
        scope = scopes[current]
        first = True
        while True:
            if name in scope.get("g", ()):
                current, scope, first = "", scopes[""], False
            bindings = scope["b"].get(name)
            if bindings and name not in scope.get("n", ()) and (first or scope["k"] != "class"):
                if first and line is not None:
                    # line < 0 is "strictly before -line": the right-hand side of `x = x.y`
                    before = ([b for b in bindings if b[-1] < -line] if line < 0
                              else [b for b in bindings if b[-1] <= line])
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
            return self._cached(key, lambda: self.eval_ref(path, scope_name, binding[1],
                                                           -binding[-1]))
        if kind == "ann":
            key = ("ann", path, scope_name, binding[1])
            return self._cached(key, lambda: self._instances(
                self.eval_ref(path, scope_name, binding[1], None)))
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
        """The values ``ref`` may denote in ``scope_name`` at ``line`` (cached per visible
        bindings of its first name, so repeated calls in one function are evaluated once)."""
        head = ref.split(".", 1)[0].split("(", 1)[0]
        summary = self.summary(path, scope_name or head)
        if summary is None:
            return []
        scope = summary["scopes"].get(scope_name)
        bindings = scope["b"].get(head) if scope is not None else None
        marker: tuple[Any, ...] = ()
        if bindings and line is not None:
            if line < 0:
                marker = (sum(1 for b in bindings if b[-1] < -line), True)
            else:
                marker = (sum(1 for b in bindings if b[-1] <= line), False)
            if marker[0] == 0:
                marker = (*marker, abs(line))
        key = ("ref", path, scope_name, ref, marker)
        return self._cached(key, lambda: self._eval_ref(path, scope_name, ref, line))

    def _eval_ref(self, path: str, scope_name: str, ref: str, line: int | None) -> list[Result]:
        parts = split_ref(ref)
        head, calls = parts[0]
        if head == "?" or not head:
            return []
        values: list[Result]
        if head.startswith("<"):
            values = [(("lit", head), CONF_LOCAL, "literal")]
        elif head in ("this", "super") and self._lang(path) != "python":
            values = self._this(path, scope_name, head == "super")
        else:
            values = self.lookup(path, scope_name, head, line)
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
