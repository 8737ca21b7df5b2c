"""TS/JS resolution rules, for the :class:`~kgraph.codegraph.resolve.Resolver`: what ``this``
is, members of object literals and of functions, what ``require`` gives, and the functions
a call hands to code the graph cannot see.

- ``this`` in a function whose scope has a ``receiver`` (:mod:`.script_functions`) is that
  ref, evaluated in the enclosing scope (``?``: unknown); an arrow sees its enclosing
  function's; a class's method (or a field's arrow) its class's instance, as before.
- An object literal's member is its item under that key (``api.load``), stores included
  (``api.extra = f``); a function's member is a definition named under it
  (``Stack.create = function``, a prototype's ``Stack.push``), not a function nested in it.
- ``require("./m")`` gives what ``module.exports`` was set to, where the module set it,
  and the module's exports by name (``exports.f``) either way.
- A function passed to a builtin, an external function or a method the graph cannot
  follow (``arr.map(f)``, ``setTimeout(f)``, ``promise.then(f)``, ``emitter.on("x",
  f)``) is called by the scope that passes it, as Python's ``map(f, xs)`` is: those run
  their callbacks (or keep them for an event no code of the repository fires). Passed
  to a function of the repository, it is called where that function calls its parameter
  (:mod:`.flow`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kgraph.codegraph.modules import TS_EXTENSIONS
from kgraph.codegraph.values import CONF_INFERRED, CONF_LOCAL, Result, Value, unique, weaken

if TYPE_CHECKING:
    from kgraph.codegraph.flow import Where
    from kgraph.codegraph.resolve import Resolver

# The export ``require()`` gives: what ``module.exports`` was set to, where it was (not a
# name a module can export: an ES module's ``require`` gives its exports by name).
WHOLE_EXPORTS: Final = "<exports>"
_FUNCTION_KINDS: Final = frozenset({"function", "method"})
_NOT_CODE: Final = ("<builtin>::", "<external>::", "<unresolved>::")


def is_script(path: str) -> bool:
    """Whether ``path`` is a TS/JS file (by its name: no summary needed)."""
    return path.endswith(TS_EXTENSIONS)


def this_value(resolver: Resolver, path: str, scope_name: str) -> list[Result] | None:
    """``this`` in ``scope_name``: the receiver of the nearest function that has one of its
    own, or None where the class rule applies (a method, an arrow in one)."""
    summary = resolver.summary(path, scope_name)
    if summary is None:
        return None
    scopes = summary["scopes"]
    current = scope_name
    while current:
        scope = scopes.get(current)
        if scope is None:
            return None
        parent = scope["parent"] or ""
        receiver = scope.get("receiver")
        if receiver is not None:
            if receiver == "?":
                return []
            found = resolver.eval_ref(path, parent, receiver, None)
            return weaken(found, CONF_INFERRED, "receiver")
        parent_scope = scopes.get(parent)
        if scope["kind"] == "class" or (
            parent_scope is not None and parent_scope["kind"] == "class"
        ):
            return None
        current = parent
    return []


def member(resolver: Resolver, value: Value, name: str) -> list[Result] | None:
    """Attribute ``name`` of an object literal or a function of a TS/JS file; None for
    other values (the common rules apply)."""
    if value[0] == "cont":
        from kgraph.codegraph.elements import container_items

        return container_items(resolver, value, name)
    if value[0] != "def" or resolver.def_kind(value) not in _FUNCTION_KINDS:
        return None
    path, qname = value[1], value[2]
    summary = resolver.summary(path, qname)
    if summary is None:
        return []
    target = f"{qname}.{name}"
    scope = summary["scopes"].get(target)
    if target not in summary["defs"] or (scope is not None and scope["parent"] == qname):
        return []  # nothing by that name, or a function nested in it
    return [(("def", path, target), CONF_LOCAL, "member")]


def required(resolver: Resolver, importer: str, module: str) -> list[Result]:
    """What ``require(module)`` gives: the module (its exports by name), and what its
    ``module.exports`` was set to."""
    from kgraph.codegraph.imports import import_module

    out: list[Result] = []
    for value, conf, method in import_module(resolver, importer, module):
        out.append((value, conf, method))
        if value[0] != "file":
            continue
        summary = resolver.summary(value[1], WHOLE_EXPORTS)
        whole = summary["exports"].get(WHOLE_EXPORTS) if summary is not None else None
        if whole is not None:
            out.extend(resolver.eval_binding(value[1], "", whole))
    return unique(out)


def callbacks(resolver: Resolver, where: Where, targets: list[str]) -> list[tuple[Value, float]]:
    """The functions a call hands to code it cannot follow (``targets``: the entity ids
    the call reaches; none of them code of the repository), with their confidences."""
    from kgraph.codegraph import flow

    if any(not target.startswith(_NOT_CODE) for target in targets):
        return []
    arguments = flow.arguments_at(resolver, where)
    if arguments is None:
        return []
    out: list[tuple[Value, float]] = []
    for ref in arguments.positional:
        if ref in ("?", "*"):
            continue
        values = flow.force(resolver, resolver.eval_ref(where[0], where[1], ref, where[3]))
        for value, confidence, _method in values:
            if value[0] == "def" and resolver.def_kind(value) in _FUNCTION_KINDS:
                out.append((value, min(confidence, CONF_INFERRED)))
    return out
