"""Attributes for the :class:`~kgraph.codegraph.resolve.Resolver`: of modules, classes
(resolved bases, the C3 MRO, member lookup along it), instances, external names.

Attributes of classes and instances follow the C3 MRO over in-repository classes, instance
attributes (``self.x = Cls()``) and annotations; an instance's property (``@property``,
``functools.cached_property``) is what its getter returns. A member no class of the repository
defines, in a class with an external base, is that base's (``ext.Base.method``), unless
the base only marks the class (``Generic[T]``, ``Protocol``, ``ABC``) or is an abstract
base class of ``collections.abc`` without that member (``Awaitable.__enter__``). These are
plain functions taking the resolver: they are part of its evaluation (they record what
they read in its read sets, and cache in its caches).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Final

from kgraph.codegraph.imports import module_attr
from kgraph.codegraph.langs import GO_SUFFIX, JAVA_SUFFIX, RUST_SUFFIX, java_packages, rust_modules
from kgraph.codegraph.langs.go_packages import go_member, package_attr
from kgraph.codegraph.script_resolve import is_script
from kgraph.codegraph.script_resolve import member as script_member
from kgraph.codegraph.summary import Assigned
from kgraph.codegraph.values import (
    CONF_BUILTIN,
    CONF_EXTERNAL,
    CONF_LOCAL,
    JS_GLOBALS,
    Result,
    Value,
    unique,
    weaken,
)

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

_MAX_EXTERNAL_DOTS: Final = 5
# What an abstract base class of ``collections.abc`` (or its ``typing`` alias) defines: its
# interface (with object's members, below).
_SIZED, _ITERABLE, _CONTAINER = {"__len__"}, {"__iter__"}, {"__contains__"}
_COLLECTION: Final = _SIZED | _ITERABLE | _CONTAINER
_SEQUENCE: Final = _COLLECTION | {"__getitem__", "__reversed__", "index", "count"}
_SET: Final = (
    _COLLECTION
    | {"__le__", "__lt__", "__gt__", "__ge__", "__and__", "__or__", "__sub__", "__xor__"}
    | {"__rand__", "__ror__", "__rsub__", "__rxor__", "isdisjoint"}
)
_MAPPING: Final = _COLLECTION | {"__getitem__", "keys", "items", "values", "get"}
_ABC_MEMBERS: Final[dict[str, set[str]]] = {
    "Container": _CONTAINER,
    "Hashable": set(),
    "Sized": _SIZED,
    "Callable": {"__call__"},
    "Iterable": _ITERABLE,
    "Iterator": _ITERABLE | {"__next__"},
    "Reversible": _ITERABLE | {"__reversed__"},
    "Generator": _ITERABLE | {"__next__", "send", "throw", "close"},
    "Collection": _COLLECTION,
    "Sequence": _SEQUENCE,
    "MutableSequence": _SEQUENCE
    | {"__setitem__", "__delitem__", "__iadd__", "insert", "append", "extend"}
    | {"pop", "remove", "clear", "reverse"},
    "AbstractSet": _SET,
    "MutableSet": _SET
    | {"add", "discard", "clear", "pop", "remove", "__ior__", "__iand__", "__ixor__", "__isub__"},
    "Mapping": _MAPPING,
    "MutableMapping": _MAPPING
    | {"__setitem__", "__delitem__", "pop", "popitem", "clear", "update", "setdefault"},
    "MappingView": _SIZED,
    "KeysView": _SET,
    "ItemsView": _SET,
    "ValuesView": _COLLECTION,
    "Awaitable": {"__await__"},
    "Coroutine": {"__await__", "send", "throw", "close"},
    "AsyncIterable": {"__aiter__"},
    "AsyncIterator": {"__aiter__", "__anext__"},
    "AsyncGenerator": {"__aiter__", "__anext__", "asend", "athrow", "aclose"},
    "ContextManager": {"__enter__", "__exit__"},
    "AsyncContextManager": {"__aenter__", "__aexit__"},
}
_OBJECT_MEMBERS: Final = frozenset(dir(object))
# The members an external base may own, for the bases known to own few: a member no class
# of the repository defines is the base's only when listed here.
# - Abstract base classes own their interface and object's members: a plain ``with`` on a
#   value that may be an ``AsyncEngine`` made 170 edges of sqlalchemy to
#   ``typing.Awaitable.__enter__``/``__exit__``.
# - Bases that only mark a class (generic, a protocol, abstract) own none of the members a
#   call reaches: 1,559 edges of sqlalchemy went to methods such as
#   ``typing.Generic.scalars`` that do not exist.
_OWN_MEMBERS: Final = {
    f"{module}.{name}": frozenset(members) | _OBJECT_MEMBERS
    for name, members in _ABC_MEMBERS.items()
    for module in ("typing", "typing_extensions", "collections.abc")
    if not (module == "collections.abc" and name.endswith("ContextManager"))
}
# collections.abc spells AbstractSet as Set (typing.Set is the builtin set's alias).
_OWN_MEMBERS["collections.abc.Set"] = _OWN_MEMBERS.pop("collections.abc.AbstractSet")
_OWN_MEMBERS["contextlib.AbstractContextManager"] = _OWN_MEMBERS["typing.ContextManager"]
_OWN_MEMBERS["contextlib.AbstractAsyncContextManager"] = _OWN_MEMBERS["typing.AsyncContextManager"]
_MARKERS: Final = ("typing.Generic", "typing.Protocol", "typing_extensions.Protocol", "abc.ABC")
_OWN_MEMBERS.update(dict.fromkeys(_MARKERS, frozenset()))
# Decorators that make a method a property: an instance's attribute is what it returns.
_PROPERTIES: Final = frozenset({"property", "cached_property", "functools.cached_property"})
# Methods of a literal followed through (what they return is made of its items).
CONTAINER_METHODS: Final = frozenset(
    {"get", "pop", "setdefault", "values", "items", "keys", "copy"}
)


def attribute(resolver: Resolver, value: Value, name: str) -> list[Result]:
    """The values of attribute ``name`` of ``value``."""
    kind = value[0]
    if kind in ("cont", "def") and is_script(value[1]):  # an object literal, a function
        found = script_member(resolver, value, name)
        if found is not None:
            return found
    if kind == "file":
        return module_attr(resolver, value[1], name)
    if kind == "gopkg":
        return package_attr(resolver, value, name)
    if kind == "jpkg":
        return java_packages.package_attr(resolver, value, name)
    if kind == "rmod":
        return rust_modules.module_attr(resolver, value, name)
    if kind == "dir":
        sub = resolver.index.python_path(posixpath.join(value[1], name) if value[1] else name)
        if sub is None:
            return []
        resolver.note(sub.rstrip("/"), "")
        return [(("dir" if sub.endswith("/") else "file", sub.rstrip("/")), 1.0, "import")]
    if kind == "def":
        if resolver.def_kind(value) in ("class", "interface", "enum"):
            return class_member(resolver, value[1], value[2], name, instance=False)
        return []
    if kind == "inst":
        return class_member(resolver, value[1], value[2], name, instance=True)
    if kind == "super":
        return class_member(resolver, value[1], value[2], name, instance=value[3], skip_first=True)
    if kind in ("ext", "extinst"):
        if value[1].count(".") >= _MAX_EXTERNAL_DOTS:
            return []
        return [(("ext", f"{value[1]}.{name}"), CONF_EXTERNAL, "external")]
    if kind == "builtin" and value[1] in JS_GLOBALS:  # console.log, Math.max: one level
        return [(("builtin", f"{value[1]}.{name}"), CONF_BUILTIN, "builtin")]
    if kind == "cont" and name in CONTAINER_METHODS:
        return [(("cmethod", name, value), CONF_LOCAL, "literal")]
    return []


def bases(resolver: Resolver, path: str, qname: str) -> list[Result]:
    """Resolved base classes (and TS ``implements``) of a class, in order."""

    def compute() -> list[Result]:
        summary = resolver.summary(path, qname)
        info = summary["defs"].get(qname) if summary is not None else None
        if summary is None or info is None:
            return []
        scope = summary["scopes"].get(qname)
        parent = (scope["parent"] if scope is not None else "") or ""
        results: list[Result] = []
        for ref in info.get("bases", ()):
            results.extend(resolver.eval_ref(path, parent, ref, info["line"]))
        return results

    return resolver.cached(("bases", path, qname), compute)


def mro(resolver: Resolver, path: str, qname: str) -> list[tuple[str, str]]:
    """C3 linearisation over in-repo classes (external bases end the chain)."""
    key = (path, qname)

    def compute() -> list[tuple[str, str]]:
        parents = [
            (v[1], v[2])
            for v, _c, _m in bases(resolver, path, qname)
            if v[0] == "def" and resolver.def_kind(v) in ("class", "interface")
        ]
        return _c3([key], [mro(resolver, *p) for p in parents] + [parents])

    return resolver.memo(("mro", *key), compute, [key])  # in a cycle: the class alone


def as_receiver(resolver: Resolver, results: list[Result], receivers: list[Result]) -> list[Result]:
    """What a method called on ``receivers`` returns, where it returns an instance of a
    base class of a receiver's (``return self`` or ``-> Self`` in a method the receiver's
    class inherits; ``return cls()`` in a classmethod called on a subclass): an instance of
    the receiver's class, as Python would give back."""
    out: list[Result] = []
    changed = False
    for value, conf, method in results:
        if value[0] == "inst":
            base = (value[1], value[2])
            subs = [
                ("inst", r[0][1], r[0][2])
                for r in receivers
                if (r[0][1], r[0][2]) != base and base in mro(resolver, r[0][1], r[0][2])
            ]
            if subs:
                out.extend((sub, conf, method) for sub in subs)
                changed = True
                continue
        out.append((value, conf, method))
    return unique(out) if changed else results


def class_member(
    resolver: Resolver, path: str, qname: str, name: str, instance: bool, skip_first: bool = False
) -> list[Result]:
    if path.endswith(GO_SUFFIX):  # no MRO: fields, the package's methods, embedded fields
        return go_member(resolver, path, qname, name)
    if path.endswith(RUST_SUFFIX):  # fields, impl blocks' methods, traits' provided ones
        return rust_modules.rust_member(resolver, path, qname, name)
    key = ("member", path, qname, name, instance, skip_first)
    return resolver.cached(
        key, lambda: _class_member(resolver, path, qname, name, instance, skip_first)
    )


def _class_member(
    resolver: Resolver, path: str, qname: str, name: str, instance: bool, skip_first: bool
) -> list[Result]:
    order = mro(resolver, path, qname)
    for class_path, class_name in order[1:] if skip_first else order:
        summary = resolver.summary(class_path, class_name)
        if summary is None:
            continue
        member = f"{class_name}.{name}"
        scope = summary["scopes"].get(class_name)
        # A TS/JS constructor function's locals are no members (its `this.x` are: attrs).
        own = scope is not None and scope["kind"] == "class"
        bindings = scope["names"].get(name) if scope is not None and own else None
        if member in summary["defs"] and not (  # a decorated method holds what was returned
            bindings and any(isinstance(b, Assigned) for b in bindings)
        ):
            if instance and not skip_first and class_path.endswith(JAVA_SUFFIX):
                return java_packages.virtual(resolver, class_path, member)
            found: list[Result] = [(("def", class_path, member), CONF_LOCAL, "mro")]
            return _properties(resolver, found) if instance else found
        if scope is None:
            continue
        results: list[Result] = []
        if bindings:
            results.extend(resolver.eval_bindings(class_path, class_name, bindings))
        attrs = scope.get("attrs", {}).get(name) if instance else None
        for scope_name, binding in attrs or ():
            results.extend(resolver.eval_binding(class_path, scope_name, binding))
        if bindings or attrs:
            return _properties(resolver, unique(results)) if instance else unique(results)
    return _external_member(resolver, order, name)


def _properties(resolver: Resolver, results: list[Result]) -> list[Result]:
    """An instance's members with its properties read: what their getters return (a
    ``@property`` stays the def; a ``@functools.cached_property``, decorated, holds it)."""
    if not any(value[0] == "def" for value, _c, _m in results):
        return results
    from kgraph.codegraph.flow import returns  # flow reads members: imported once needed

    out: list[Result] = []
    for value, conf, method in results:
        summary = resolver.summary(value[1], value[2]) if value[0] == "def" else None
        info = summary["defs"].get(value[2]) if summary is not None else None
        if info is not None and not _PROPERTIES.isdisjoint(info.get("decorators", ())):
            out.extend(weaken(returns(resolver, value[1], value[2]), conf, method))
        else:
            out.append((value, conf, method))
    return unique(out)


def _external_member(resolver: Resolver, order: list[tuple[str, str]], name: str) -> list[Result]:
    """``ext.Base.name`` for the first external base along the MRO that may own ``name``
    (:data:`_OWN_MEMBERS`: not a marker, nor an abstract base class without such a member).
    Python and Java only; builtin bases' methods are not followed."""
    for class_path, class_name in order:
        if resolver._lang(class_path) not in ("python", "java"):
            return []
        for value, _conf, _method in bases(resolver, class_path, class_name):
            if value[0] != "ext":
                continue
            owned = _OWN_MEMBERS.get(value[1])
            if owned is not None and name not in owned:
                continue
            if value[1].count(".") < _MAX_EXTERNAL_DOTS:
                return [(("ext", f"{value[1]}.{name}"), CONF_EXTERNAL, "external")]
    return []


def _c3(
    head: list[tuple[str, str]], sequences: list[list[tuple[str, str]]]
) -> list[tuple[str, str]]:
    result = list(head)
    seqs = [list(s) for s in sequences if s]
    while seqs:
        for seq in seqs:
            candidate = seq[0]
            if not any(candidate in s[1:] for s in seqs):
                break
        else:  # inconsistent hierarchy: fall back to depth-first, left to right
            for seq in seqs:
                result.extend(c for c in seq if c not in result)
            return result
        if candidate not in result:
            result.append(candidate)
        seqs = [s[1:] if s[0] == candidate else s for s in seqs]
        seqs = [s for s in seqs if s]
    return result
