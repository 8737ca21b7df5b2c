"""The items of ``*args`` and ``**kwargs`` parameters, for :func:`.flow.force`: what the
callers of a function pass into its packs, selected by the subscripts, slices and
iterations deferred on the pack's placeholder (``args[0]``, ``kwargs['k']``, ``for f in
args[1:]``).

A slice is no item: ``int("1:")`` on the slice of ``for f in args[1:]`` raised and aborted
a whole repository's parse. Items are cached like a parameter's values: an item passed
along a recursive call (``def f(*a): f(a[0])``) is a cycle of the memo, where it used to
recurse until the stack overflowed (CPython's library).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kgraph.codegraph.flow import arguments_at, call_sites, evaluate, force
from kgraph.codegraph.refs import ITERATE, op_key, slice_start
from kgraph.codegraph.summary import Arguments, ParamSpec, param_specs
from kgraph.codegraph.values import CONF_INFERRED, Result, Value, unique, weaken

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

# What selects items of a pack: an index, a keyword's name, None for an unknown key, or
# PACK_ALL for iterating it (a string no name or index can be).
PackKey = str | int | None
PACK_ALL: Final = ITERATE


def pack_selection(ops: tuple[str, ...]) -> tuple[PackKey, int, tuple[str, ...]] | None:
    """Which items of a pack its deferred ``ops`` select: (key, start, the ops left to
    apply to each item). Slices (``args[1:]``) move the start and select no item
    themselves; a pack (or a slice of it) with no subscript left is not an item: None."""
    start = 0
    for index, op in enumerate(ops):
        if op == ITERATE:
            return PACK_ALL, start, ops[index + 1 :]
        begin = slice_start(op)
        if begin is None:
            key = op_key(op)
            if isinstance(key, int):
                key = start + key if key >= 0 else (key if not start else None)
            return key, start, ops[index + 1 :]
        start += max(begin, 0)  # a negative start: counted from an end unknown here
    return None


def pack_items(resolver: Resolver, value: Value, key: PackKey, start: int = 0) -> list[Result]:
    """Items of a ``*args`` (by position: ``key``, else every item from ``start`` on) or
    ``**kwargs`` (by name) parameter, cached like :func:`.flow.argument_values` (see the
    module docstring: a cycle of the memo, not a recursion)."""
    if isinstance(key, int):
        start = 0  # folded into the key by pack_selection

    def compute() -> list[Result]:
        _kind, path, qname, position = value
        scope = resolver.scope(path, qname)
        params = param_specs(scope) if scope is not None else []
        if position >= len(params):
            return []
        spec = params[position]
        results: list[Result] = []
        for site in call_sites(resolver, path, qname):
            arguments = arguments_at(resolver, site.where)
            if arguments is None:
                continue
            if spec.kind == "star":
                extra = _star_items(params, arguments, site.shift, key, start)
            else:
                extra = _keyword_items(params, arguments, key) if not start else []
            for ref in extra:
                results.extend(evaluate(resolver, site.where, ref))
        return weaken(force(resolver, unique(results)), CONF_INFERRED, "argument")

    return resolver.cached(("pack", *value, key, start), compute)


def _star_items(
    params: list[ParamSpec], arguments: Arguments, shift: int, key: PackKey, start: int
) -> list[str]:
    """The refs a call passes into a ``*args`` pack that ``key`` selects (an index, or
    :data:`PACK_ALL`/None: all from ``start`` on); those after a ``*xs`` are unknown."""
    named = sum(1 for p in params if p.kind in ("pos", "posonly"))
    extra = arguments.positional[max(named - shift, 0) :]
    known = extra[: extra.index("*")] if "*" in extra else extra
    if key == PACK_ALL or key is None:
        return known[start:]
    if not isinstance(key, int):
        return []
    if key < 0:  # from the end: only known when no *xs makes the length unknown
        return known[key:][:1] if known is extra else []
    return known[key : key + 1]


def _keyword_items(params: list[ParamSpec], arguments: Arguments, key: PackKey) -> list[str]:
    """The refs a call passes into a ``**kwargs`` pack that ``key`` selects (a name, or
    None: any; iterating a dict gives its keys, which are not followed)."""
    names = {p.name for p in params if p.kind in ("pos", "kwonly")}
    keywords = {k: v for k, v in arguments.keywords.items() if k not in names}
    keywords.pop("**", None)
    if key == PACK_ALL:
        return []
    if key is None:
        return list(keywords.values())
    return [keywords[key]] if isinstance(key, str) and key in keywords else []
