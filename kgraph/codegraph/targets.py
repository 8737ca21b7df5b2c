"""What a call reaches: the targets of one call site, for :mod:`kgraph.codegraph.build`.

A call of a class runs its ``__init__`` (wherever the MRO finds it; an external base's
``ext.Base.__init__`` when no class of the repository defines one); of an instance, its
``__call__``; ``raise A`` instantiates ``A``. Builtins that call the functions they are
given (``map(f, xs)``, ``sorted(xs, key=f)``, ``functools.reduce(f, xs)``, any
``x.sort(key=f)``) call them from the calling scope. A call that could not be resolved
keeps a name-only candidate ``<unresolved>::name`` with a low confidence.
"""

from __future__ import annotations

from typing import Final

from kgraph.codegraph import flow
from kgraph.codegraph.hierarchy import class_member
from kgraph.codegraph.refs import PROTOCOL, RAISE, call_args, split_call, split_ref
from kgraph.codegraph.resolve import Resolver
from kgraph.codegraph.script_resolve import callbacks, is_script
from kgraph.codegraph.values import Result, Value

BUILTIN_PREFIX: Final = "<builtin>::"
EXTERNAL_PREFIX: Final = "<external>::"
UNRESOLVED_PREFIX: Final = "<unresolved>::"
CONF_UNRESOLVED: Final = 0.2
Target = tuple[str, str | None, float, str]  # (entity id, its file, confidence, resolution)

# Callee -> (positions, keywords) of the arguments it calls.
CALLBACKS: Final[dict[str, tuple[tuple[int, ...], tuple[str, ...]]]] = {
    "<builtin>::map": ((0,), ()),
    "<builtin>::filter": ((0,), ()),
    "<builtin>::sorted": ((), ("key",)),
    "<builtin>::min": ((), ("key",)),
    "<builtin>::max": ((), ("key",)),
    "<external>::functools.reduce": ((0,), ()),
}


_CALLING: Final = frozenset(
    {name.rsplit(".", 1)[-1].rsplit(":", 1)[-1] for name in CALLBACKS} | {"sort"}
)  # the names a call must end with to be looked at for callbacks


def value_target(value: Value) -> tuple[str, str | None] | None:
    """(entity id, file) a value points at, or None for values that are not entities."""
    kind = value[0]
    if kind in ("def", "inst"):
        return f"{value[1]}::{value[2]}", value[1]
    if kind == "file":
        return value[1], value[1]
    if kind == "ext":
        return EXTERNAL_PREFIX + value[1], None
    if kind == "builtin":
        return BUILTIN_PREFIX + value[1], None
    return None


def call_targets(
    resolver: Resolver, path: str, scope: str, ref: str, line: int | None
) -> list[Target]:
    """The targets of the call ``ref`` (a callee's ref and a call operation)."""
    callee, op = split_call(ref)
    values = flow.force(resolver, resolver.eval_ref(path, scope, callee, line))
    if op == PROTOCOL:
        return _iteration(resolver, values)
    out: list[Target] = []
    for value, confidence, method in values:
        out.extend(_targets(resolver, value, confidence, method, op == RAISE))
    index = call_args(op)
    if index is not None and is_script(path):  # arr.map(f), setTimeout(f), p.then(f)
        handed = callbacks(resolver, (path, scope, index, line), [t[0] for t in out])
        for value, confidence in handed:
            out.extend(_targets(resolver, value, confidence, "argument", False))
    elif index is not None and callee.rsplit(".", 1)[-1] in _CALLING:
        out.extend(_callbacks(resolver, (path, scope, index, line), callee, out))
    if not out:
        name = split_ref(callee)[-1]
        # Dunder calls (with-statements' __enter__/__exit__, super().__init__) on something
        # unknown say nothing about which code runs: no candidate.
        if (
            name.name
            and name.name != "?"
            and not name.ops
            and not name.name.startswith(("<", "__", "@"))
            and name.name != "constructor"
        ):
            out.append((UNRESOLVED_PREFIX + name.name, None, CONF_UNRESOLVED, "name-only"))
    return out


def _targets(
    resolver: Resolver, value: Value, confidence: float, method: str, raised: bool
) -> list[Target]:
    kind = value[0]
    if kind == "def" and resolver.def_kind(value) == "class":
        return _constructor(resolver, value, confidence)
    if raised:  # `raise x`: an instance is raised, not called
        return [(*t, confidence, method) for t in _plain(value)]
    if kind == "def":
        return [(f"{value[1]}::{value[2]}", value[1], confidence, method)]
    if kind == "inst":
        return [
            (f"{m[1]}::{m[2]}", m[1], min(conf, confidence), method)
            for m, conf, _m in class_member(resolver, value[1], value[2], "__call__", True)
            if m[0] == "def"
        ]
    if kind in ("ext", "builtin"):
        return [(*t, confidence, method) for t in _plain(value)]
    return []


def _iteration(resolver: Resolver, values: list[Result]) -> list[Target]:
    """Iterating instances: their ``__iter__``, and the ``__next__`` of what it returns
    (nothing more for an ``__iter__`` that yields: a generator)."""
    out: list[Target] = []
    for value, confidence, _method in values:
        if value[0] != "inst":
            continue
        for method, conf, _m in class_member(resolver, value[1], value[2], "__iter__", True):
            if method[0] != "def":
                continue
            out.append((f"{method[1]}::{method[2]}", method[1], min(conf, confidence), "mro"))
            for iterator, _c, _m2 in flow.call_result(resolver, method, None, True):
                if iterator[0] != "inst":
                    continue
                members = class_member(resolver, iterator[1], iterator[2], "__next__", True)
                for step, conf2, _m3 in members:
                    if step[0] == "def":
                        out.append(
                            (f"{step[1]}::{step[2]}", step[1], min(conf2, confidence), "mro")
                        )
    return out


def _plain(value: Value) -> list[tuple[str, str | None]]:
    if value[0] in ("ext", "builtin"):
        target = value_target(value)
        return [(target[0], None)] if target is not None else []
    return []


def _constructor(resolver: Resolver, value: Value, confidence: float) -> list[Target]:
    """A class called: its ``__init__`` (TS/JS: ``constructor``), or the class itself."""
    init = "__init__" if resolver._lang(value[1]) == "python" else "constructor"
    out: list[Target] = []
    for member, conf, _m in class_member(resolver, value[1], value[2], init, False):
        if member[0] == "def":
            out.append(
                (f"{member[1]}::{member[2]}", member[1], min(conf, confidence), "constructor")
            )
        elif member[0] == "ext":
            out.append((EXTERNAL_PREFIX + member[1], None, min(conf, confidence), "constructor"))
    if not out:
        out.append((f"{value[1]}::{value[2]}", value[1], confidence, "class"))
    return out


def _callbacks(
    resolver: Resolver, where: flow.Where, callee: str, found: list[Target]
) -> list[Target]:
    """Functions a builtin called here calls: ``map(f, xs)``, ``sorted(xs, key=f)``..."""
    arguments = flow.arguments_at(resolver, where) if where[2] is not None else None
    if arguments is None:
        return []
    refs: list[str] = []
    if callee.endswith(".sort"):
        refs.append(arguments.keywords.get("key", "?"))
    for target, _file, _conf, _method in found:
        positions, keywords = CALLBACKS.get(target, ((), ()))
        refs += [arguments.positional[i] for i in positions if i < len(arguments.positional)]
        refs += [arguments.keywords[k] for k in keywords if k in arguments.keywords]
    out: list[Target] = []
    for ref in refs:
        if ref in ("?", "*"):
            continue
        values = resolver.eval_ref(where[0], where[1], ref, where[3])
        for value, confidence, _method in flow.force(resolver, values):
            if value[0] in ("def", "inst") or value[0] == "ext":
                out.extend(_targets(resolver, value, confidence, "argument", False))
    return out
