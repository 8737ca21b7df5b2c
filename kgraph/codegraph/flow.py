"""Values that flow through calls, for the :class:`~kgraph.codegraph.resolve.Resolver`: what
a call returns, and what a parameter holds.

A parameter holds what its function's callers pass (positionally, by keyword, or its
default when some caller leaves it out): the call sites are found by the called name in
every file (:func:`kgraph.codegraph.changes.site_entries`), and those whose callee
resolves to the function are bound. That search is only made where the parameter's value
matters to a call graph: where it is called, subscripted or iterated (a placeholder value
stands for it until then: :func:`force`), so ``param.method()`` costs nothing.

A call returns what its function returns; where that is one of its own parameters
(``def identity(f): return f``; a decorator registering its argument), the arguments of
that very call are used, so each call site gets its own function back. A generator
function returns a generator; a decorator that returns nothing the repository defines
(an external one, or one whose result cannot be followed) leaves the function as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from kgraph.codegraph.changes import DECORATOR_SITES
from kgraph.codegraph.hierarchy import class_member
from kgraph.codegraph.langs import GO_SUFFIX, RUST_SUFFIX
from kgraph.codegraph.refs import call_args, split_call, split_ref
from kgraph.codegraph.script_resolve import is_script
from kgraph.codegraph.summary import Arguments, ParamSpec, param_specs, scope_kind
from kgraph.codegraph.values import (
    CONF_EXTERNAL,
    CONF_INFERRED,
    CONF_LOCAL,
    CONF_SELF,
    PY_BUILTIN_TYPES,
    Result,
    Value,
    unique,
    weaken,
)

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

Where = tuple[str, str, int | None, int | None]  # a call: (path, scope, args index, line)
_LAZY: Final = frozenset({"param", "pack"})
_CODE: Final = frozenset({"def", "inst", "gen", "cont", "param", "pack"})
_EXTERNAL_RETURNING_ARGUMENT: Final = frozenset({"functools.partial"})


class Site(NamedTuple):
    """A call of a function: where it is, and how many parameters the call binds itself
    (1 for a bound method's self or a classmethod's cls, else 0)."""

    where: Where
    shift: int


def force(resolver: Resolver, results: list[Result], depth: int = 0) -> list[Result]:
    """``results`` with parameter placeholders replaced by what callers pass, their
    deferred subscripts and iterations applied."""
    for value, _c, _m in results:
        if value[0] in _LAZY:
            break
    else:
        return results
    out: list[Result] = []
    for value, conf, method in results:
        if value[0] not in _LAZY:
            out.append((value, conf, method))
            continue
        if depth > 8:
            continue
        ops: tuple[str, ...] = value[4]
        if value[0] == "param":
            found = argument_values(resolver, value[1], value[2], value[3])
        else:  # *args/**kwargs: an item of the pack
            from kgraph.codegraph.packs import pack_items, pack_selection

            selected = pack_selection(ops)
            if selected is None:
                continue
            key, start, ops = selected
            found = pack_items(resolver, value[:4], key, start)
        for op in ops:
            found = resolver.apply(found, op, "", "", None)
        out.extend(weaken(force(resolver, found, depth + 1), conf, method))
    return unique(out)


def defer(value: Value, op: str) -> list[Result]:
    """A placeholder with one more subscript/iteration to apply once it is forced."""
    return [((*value[:4], (*value[4], op)), CONF_INFERRED, "argument")]


# -- calls --------------------------------------------------------------------------------
def apply_call(resolver: Resolver, values: list[Result], where: Where, bound: bool) -> list[Result]:
    """Call every value at ``where``; a decorator whose result is nothing of the repository
    gives back the decorated definition."""
    out = resolver.flat(values, lambda v: call_result(resolver, v, where, bound))
    if where[2] is None or any(value[0] in _CODE for value, _c, _m in out):
        return out
    arguments = arguments_at(resolver, where)
    if arguments is not None and arguments.decorator:
        return _positional(resolver, where, arguments, 0)
    return out


def call_result(resolver: Resolver, value: Value, where: Where | None, bound: bool) -> list[Result]:
    """What calling ``value`` returns (``where``: the call, for its arguments)."""
    kind = value[0]
    if kind == "def":
        def_kind = resolver.def_kind(value)
        if def_kind == "class":
            return [(("inst", value[1], value[2]), CONF_INFERRED, "inferred")]
        if def_kind in ("function", "method"):
            return _function_result(resolver, value[1], value[2], where, bound)
        return []
    if kind == "builtin":
        return _builtin_result(resolver, value[1], where)
    if kind == "ext":
        if value[1] in _EXTERNAL_RETURNING_ARGUMENT and where is not None:
            arguments = arguments_at(resolver, where)
            return _positional(resolver, where, arguments, 0) if arguments else []
        if value[1].rsplit(".", 1)[-1][:1].isupper() and not (
            where is not None and where[0].endswith((GO_SUFFIX, RUST_SUFFIX))
        ):  # a class, by convention (in Go any exported name is, in Rust a variant)
            return [(("extinst", value[1]), CONF_EXTERNAL, "external")]
        return []
    if kind == "inst":
        out: list[Result] = []
        for method, _c, _m in class_member(resolver, value[1], value[2], "__call__", True):
            if method[0] == "def":
                out.extend(call_result(resolver, method, where, True))
        return out
    if kind == "cmethod":
        return _container_method(resolver, value)
    return []


def _function_result(
    resolver: Resolver, path: str, qname: str, where: Where | None, bound: bool
) -> list[Result]:
    scope = resolver.scope(path, qname)
    if scope is None:
        return []
    if "yields" in scope:
        return [(("gen", path, qname), CONF_INFERRED, "inferred")]
    results = returns(resolver, path, qname)
    arguments = arguments_at(resolver, where) if where is not None else None
    if arguments is None or not any(v[0] == "param" and v[2] == qname for v, _c, _m in results):
        return results
    params = param_specs(scope)
    shift = _shift(resolver, path, qname, bound)
    out: list[Result] = []
    for value, conf, method in results:
        if value[0] == "param" and value[1] == path and value[2] == qname:
            assert where is not None
            found = _bound(resolver, where, arguments, params, value[3], shift)
            kept = found if found is not None else [(value, conf, method)]
            out.extend(weaken(kept, conf, method))
        else:
            out.append((value, conf, method))
    return unique(out)


def returns(resolver: Resolver, path: str, qname: str) -> list[Result]:
    """What a function returns, its own parameters left as placeholders."""

    def compute() -> list[Result]:
        scope = resolver.scope(path, qname)
        if scope is None:
            return []
        results = resolver.eval_bindings(path, qname, scope.get("returns", []))
        return weaken(results, CONF_INFERRED, "inferred")

    return resolver.cached(("returns", path, qname), compute)


def _builtin_result(resolver: Resolver, name: str, where: Where | None) -> list[Result]:
    from kgraph.codegraph.elements import iterate

    if name == "super":
        if where is None:
            return []
        found = resolver.enclosing_class(where[0], where[1])
        if found is None:
            return []
        return [(("super", where[0], found[0], found[1]), CONF_SELF, "super-mro")]
    arguments = arguments_at(resolver, where) if where is not None else None
    if arguments is not None and where is not None:
        first = _positional(resolver, where, arguments, 0)
        if name in ("staticmethod", "classmethod"):
            return first
        if name == "iter":
            return resolver.flat(first, lambda v: _iterator(resolver, v))
        if name == "next":
            return resolver.flat(first, lambda v: iterate(resolver, v))
        if name == "enumerate":
            return [(("view", "enumerate", v), c, m) for v, c, m in first]
    if name in PY_BUILTIN_TYPES:
        return [(("lit", f"<{name}>"), CONF_LOCAL, "literal")]
    return []


def _iterator(resolver: Resolver, value: Value) -> list[Result]:
    """``iter(value)``: an instance's ``__iter__()``; other iterables stand for themselves."""
    if value[0] != "inst":
        return [(value, CONF_LOCAL, "literal")]
    out: list[Result] = []
    for method, _c, _m in class_member(resolver, value[1], value[2], "__iter__", True):
        if method[0] == "def":
            out.extend(call_result(resolver, method, None, True))
    return out


def _container_method(resolver: Resolver, value: Value) -> list[Result]:
    from kgraph.codegraph.elements import subscript

    name, base = value[1], value[2]
    if name in ("get", "pop", "setdefault"):
        return subscript(resolver, base, None)
    if name in ("values", "items", "keys"):
        return [(("view", name, base), CONF_LOCAL, "literal")]
    return [(base, CONF_LOCAL, "literal")]  # copy


# -- arguments ----------------------------------------------------------------------------
def arguments_at(resolver: Resolver, where: Where) -> Arguments | None:
    path, scope_name, index, _line = where
    if index is None:
        return None
    scope = resolver.scope(path, scope_name)
    args = scope.get("args", []) if scope is not None else []
    return args[index] if index < len(args) else None


def evaluate(resolver: Resolver, where: Where, ref: str) -> list[Result]:
    if ref == "?":
        return []
    return resolver.eval_ref(where[0], where[1], ref, where[3])


def _positional(resolver: Resolver, where: Where, arguments: Arguments, index: int) -> list[Result]:
    positional = arguments.positional
    if index < len(positional) and positional[index] != "*":
        return evaluate(resolver, where, positional[index])
    return []


def _bound(
    resolver: Resolver,
    where: Where,
    arguments: Arguments,
    params: list[ParamSpec],
    position: int,
    shift: int,
) -> list[Result] | None:
    """What a call passes for ``params[position]``: a list (empty when it cannot be
    followed), or None when the call leaves it out (its default applies)."""
    spec = params[position]
    positional = arguments.positional
    if spec.kind in ("pos", "posonly"):
        index = position - shift
        star = positional.index("*") if "*" in positional else len(positional)
        if 0 <= index < star:
            return evaluate(resolver, where, positional[index])
        if index >= star and star < len(positional):
            return []  # passed through *args: unknown
    if spec.kind in ("pos", "kwonly"):
        if spec.name in arguments.keywords:
            return evaluate(resolver, where, arguments.keywords[spec.name])
        if "**" in arguments.keywords:
            return []
    return None


def _shift(resolver: Resolver, path: str, qname: str, bound: bool) -> int:
    """Parameters a call binds itself: a classmethod's cls, a bound method's self."""
    scope = resolver.scope(path, qname)
    parent = (scope["parent"] if scope is not None else "") or ""
    summary = resolver.summary(path)
    if (
        scope is None
        or summary is None
        or summary["scopes"].get(parent, {"kind": ""})["kind"] != "class"
    ):
        return 0
    method = scope.get("method")
    if method == "static" or (not scope.get("self_name") and is_script(path)):
        return 0  # a TS/JS method binds no parameter of its own
    return 1 if method == "class" or bound else 0


def argument_values(resolver: Resolver, path: str, qname: str, position: int) -> list[Result]:
    """What the callers of function ``qname`` pass for its parameter ``position`` (its
    default where some caller leaves it out, or no caller is known)."""

    def compute() -> list[Result]:
        scope = resolver.scope(path, qname)
        params = param_specs(scope) if scope is not None else []
        if scope is None or position >= len(params):
            return []
        results: list[Result] = []
        missing = False
        sites = call_sites(resolver, path, qname)
        for site in sites:
            arguments = arguments_at(resolver, site.where)
            if arguments is None:
                continue
            found = _bound(resolver, site.where, arguments, params, position, site.shift)
            if found is None:
                missing = True
            else:
                results.extend(found)
        default = params[position].default
        if default and (missing or not sites):
            summary = resolver.summary(path, qname)
            info = summary["defs"].get(qname) if summary is not None else None
            line = info["line"] if info is not None else None
            results.extend(resolver.eval_ref(path, scope["parent"] or "", default, line))
        return weaken(force(resolver, unique(results)), CONF_INFERRED, "argument")

    return resolver.cached(("argument", path, qname, position), compute)


# -- call sites ---------------------------------------------------------------------------
def call_sites(resolver: Resolver, path: str, qname: str) -> list[Site]:
    """The calls that reach function ``qname``, found by name in every file (cached with
    what the search read)."""
    cut: list[Site] = []
    return resolver.memo(("sites", path, qname), lambda: _call_sites(resolver, path, qname), cut)


def _call_sites(resolver: Resolver, path: str, qname: str) -> list[Site]:
    summary = resolver.summary(path, qname)
    scope = summary["scopes"].get(qname) if summary is not None else None
    if summary is None or scope is None:
        return []
    parent = scope["parent"] or ""
    parent_kind = scope_kind(summary, parent)
    name = qname.rsplit(".", 1)[-1]
    keys = [name]
    script = is_script(path)  # TS/JS: `new C()` runs `C.constructor`, which has no self
    constructor = "constructor" if script else "__init__"
    init = name == constructor and parent_kind == "class"
    if init:
        keys.append(parent.rsplit(".", 1)[-1])
    if parent_kind == "function":  # a decorator the enclosing function returns
        keys.append(DECORATOR_SITES + parent.rsplit(".", 1)[-1])
    target = ("def", path, qname)
    sites: list[Site] = []
    for key in keys:
        resolver.note_sites(key)
        for site_path in resolver.site_files(key):
            entries = resolver.site_entries(site_path, key)
            for scope_name, ref, line in entries.get(key, ()):
                callee, op = split_call(ref)
                where = (site_path, scope_name, call_args(op), line)
                values = force(resolver, resolver.eval_ref(site_path, scope_name, callee, line))
                for value, _c, _m in values:
                    if value == target:
                        sites.append(Site(where, _site_shift(resolver, where, callee, path, qname)))
                        break
                    if init and value[0] == "def" and resolver.def_kind(value) == "class":
                        members = class_member(resolver, value[1], value[2], constructor, False)
                        if any(m[0] == target for m in members):
                            sites.append(Site(where, 0 if script else 1))
                            break
    return sites


def _site_shift(resolver: Resolver, where: Where, callee: str, path: str, qname: str) -> int:
    """1 when the call binds the function's first parameter itself: a classmethod, or a
    method called on an instance (or through a name holding a bound method)."""
    scope = resolver.scope(path, qname)
    if scope is None or not scope.get("self_name"):
        return 0
    if scope.get("method") == "class":
        return 1
    parts = split_ref(callee)
    if len(parts) < 2:
        return 1
    receiver = callee[: callee.rfind(".")]
    values = resolver.eval_ref(where[0], where[1], receiver, where[3])
    classes = [v for v, _c, _m in values if v[0] == "def"]
    return 0 if classes and len(classes) == len(values) else 1
