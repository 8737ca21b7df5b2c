"""TS/JS function values -> definitions, for :mod:`kgraph.codegraph.parse_ts`.

JavaScript makes most of its functions as values: arrows and function expressions passed
as callbacks, returned, stored in object literals or on a prototype. Each becomes a
function of its own (as a Python lambda is), so its calls are its own and an edge can
reach it. Its name comes from where the value goes, as a reader would name it:

=========================================  ==============================================
``const f = () => {}``, ``f = function``    ``f`` (in the scope it is written in)
``const api = { load() {}, save: fn }``    ``api.load``, ``api.save`` (nested objects add
                                           their keys: ``handlers.user.create``)
``return { inc() {} }``, ``run({ a() {} })``  the key alone: ``makeCounter.inc``
``obj.x = function``, ``exports.f = ...``  ``obj.x``; ``f`` (CommonJS exports)
``Foo.prototype.m = function``             ``Foo.m`` (a method of ``Foo``'s instances)
``module.exports = function``, ``export     ``default``
default function () {}``
anything else                              its own name (``function g() {}``), else
                                           ``<anonymousN>``, numbered in source order
                                           within the enclosing function or module
=========================================  ==============================================

A function value's ref (:mod:`.refs`) is ``@name``, its name relative to the scope the
value is written in, dots as ``:`` (``@api:load``): refs are only ever evaluated there.
What ``this`` is in a function is its scope's ``receiver``, a ref evaluated in the
enclosing scope, where it is not the class's instance: an object literal's methods get the
object, a function ``.bind(x)`` gets ``x``, a constructor function (one whose
``prototype`` the file assigns) and its prototype's methods an instance of it, any other
``function`` an unknown ``?``; an arrow has none, and sees its enclosing function's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final, NamedTuple

from tree_sitter import Node

from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Assigned,
    Binding,
    Parameter,
    ScopedBinding,
    add_binding,
    defined,
    new_scope,
    param_entry,
)

if TYPE_CHECKING:
    from kgraph.codegraph.parse_ts import ScriptSummariser

FUNCTION_VALUES: Final = ("arrow_function", "function_expression", "function", "generator_function")
ANONYMOUS: Final = "<anonymous"
_NAME: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DOTTED: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")
_EXPORTS: Final = ("module.exports", "exports")
_SEE_THROUGH: Final = ("parenthesized_expression", "as_expression", "satisfies_expression")


class Named(NamedTuple):
    """Where a function value goes: its name relative to the enclosing scope, and the ref
    of its ``this`` (evaluated there; "" for none of its own: an arrow's, a class
    member's)."""

    name: str
    receiver: str


def member_path(summariser: ScriptSummariser, obj: Node) -> str | None:
    """The name an object literal's members are qualified with: the name it is bound to
    (``api``; ``Foo`` for ``Foo.prototype = {...}``), its key in an enclosing object
    (``handlers.user``), "" where members take their key alone (returned, passed,
    ``module.exports``); None where its keys name nothing (an array's item)."""
    parent = _up(obj)
    if parent is None:
        return ""
    kind = parent.type
    if kind == "variable_declarator" and _is(parent.child_by_field_name("value"), obj):
        name = parent.child_by_field_name("name")
        return summariser.text(name) if name is not None and name.type == "identifier" else None
    if kind == "assignment_expression" and _is(parent.child_by_field_name("right"), obj):
        return target_name(summariser, parent.child_by_field_name("left"))
    if kind == "pair" and _is(parent.child_by_field_name("value"), obj):
        key = property_key(summariser, parent.child_by_field_name("key"))
        outer = parent.parent
        above = member_path(summariser, outer) if outer is not None else ""
        if key is None or above is None:
            return None
        return f"{above}.{key}" if above else key
    if kind in ("array", "spread_element"):
        return None
    return ""


def target_name(summariser: ScriptSummariser, left: Node | None) -> str | None:
    """The name an assignment's target gives the value: ``x`` -> ``x``, ``a.b`` ->
    ``a.b``, ``exports.f`` -> ``f``, ``Foo.prototype.m`` -> ``Foo.m``, ``this.x`` ->
    ``x``, ``module.exports`` -> "" (members by their key); None for other targets."""
    if left is None:
        return None
    text = summariser.text(left)
    if text in _EXPORTS:
        return ""
    if not _DOTTED.fullmatch(text):
        return None
    for prefix in ("module.exports.", "exports.", "this."):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    return text.replace(".prototype.", ".").removesuffix(".prototype")


def property_key(summariser: ScriptSummariser, key: Node | None) -> str | None:
    """An object key that can be part of a name (``a``, ``'a'``), else None."""
    if key is None:
        return None
    text = summariser.text(key).strip("'\"")
    return text if _NAME.fullmatch(text) else None


def constructor_names(summariser: ScriptSummariser, assignments: list[Node]) -> set[str]:
    """Names the file assigns a prototype to (``Foo.prototype.m = ...``, ``Foo.prototype =
    ...``): constructor functions."""
    found: set[str] = set()
    for node in assignments:
        text = summariser.text(node.child_by_field_name("left"))
        head, dot, rest = text.partition(".prototype")
        if dot and (not rest or rest.startswith(".")) and _NAME.fullmatch(head):
            found.add(head)
    return found


def on_function_value(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """An arrow or function expression not yet defined by its declaration (``const f``, a
    class field): named by where it goes, defined, and its parameters bound."""
    if node.id in summariser.function_names:
        return
    named = _name_from_context(summariser, node, scope)
    define_value(summariser, node, scope, named)


def on_object_method(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """``{ load() {} }``: a method of an object literal, named by the object."""
    obj = node.parent
    key = property_key(summariser, node.child_by_field_name("name"))
    path = member_path(summariser, obj) if obj is not None else None
    if obj is None or key is None or path is None:
        named = Named(_anonymous(summariser, scope), "?")
    else:
        named = Named(f"{path}.{key}" if path else key, object_receiver(summariser, obj, scope))
    define_value(summariser, node, scope, named)


def define_value(summariser: ScriptSummariser, node: Node, scope: str, named: Named) -> str:
    """Define the function ``node`` under ``named`` in ``scope``; its qualified name."""
    qname = f"{scope}.{named.name}" if scope else named.name
    summariser.function_names[node.id] = named.name
    line = node.start_point[0] + 1
    body = node.child_by_field_name("body")
    kind = (
        "method" if "." in named.name or summariser.scopes[scope]["kind"] == "class" else "function"
    )
    summariser.summary["defs"].setdefault(
        qname, {"kind": kind, "line": line, "end": node.end_point[0] + 1, "exported": False}
    )
    summariser.spans.enter(node, qname, (body or node).start_byte)
    if qname not in summariser.scopes:
        summariser.scopes[qname] = new_scope("function", scope)
        own = node.child_by_field_name("name")  # `function g() {}` is `g` in its own body
        if own is not None and node.type != "method_definition":
            add_binding(summariser.scopes[qname], summariser.text(own), defined(qname, line))
        if named.receiver:
            summariser.scopes[qname]["receiver"] = named.receiver
        bind_parameters(summariser, node, qname)
    return qname


def _name_from_context(summariser: ScriptSummariser, node: Node, scope: str) -> Named:
    parent = _up(node)
    own = node.child_by_field_name("name")
    plain = "" if node.type == "arrow_function" else "?"  # an arrow has no `this` of its own
    receiver = _bound_receiver(summariser, parent) or plain
    if parent is not None:
        kind = parent.type
        if kind == "pair" and _is(parent.child_by_field_name("value"), node):
            obj = parent.parent
            key = property_key(summariser, parent.child_by_field_name("key"))
            path = member_path(summariser, obj) if obj is not None else None
            if key is not None and path is not None:
                if receiver == "?" and obj is not None:
                    receiver = object_receiver(summariser, obj, scope)
                return Named(f"{path}.{key}" if path else key, receiver)
        elif kind == "assignment_expression" and _is(parent.child_by_field_name("right"), node):
            name = target_name(summariser, parent.child_by_field_name("left"))
            if name == "":
                return Named("default", receiver)
            if name is not None:
                head = name.partition(".")[0]
                if receiver == "?" and "." in name and head in summariser.constructors:
                    receiver = f"{head}(!)"  # Foo.prototype.m: an instance of Foo
                elif receiver == "?" and "." in name:
                    receiver = name.rpartition(".")[0]  # obj.m = function: obj
                return Named(name, receiver)
        elif kind == "export_statement":
            return Named("default", receiver)
    if own is not None:
        return Named(summariser.text(own), receiver)
    return Named(_anonymous(summariser, scope), receiver)


def _anonymous(summariser: ScriptSummariser, scope: str) -> str:
    count = summariser.anonymous_counts[scope] = summariser.anonymous_counts.get(scope, 0) + 1
    return f"{ANONYMOUS}{count}>"


def object_receiver(summariser: ScriptSummariser, obj: Node, scope: str) -> str:
    """``this`` in a method of the object literal ``obj``: the object (its literal, made
    now and filled once its members are named), or an instance of ``Foo`` for
    ``Foo.prototype = {...}``."""
    parent = _up(obj)
    if parent is not None and parent.type == "assignment_expression":
        name = target_name(summariser, parent.child_by_field_name("left"))
        if name and name in summariser.constructors:
            return f"{name}(!)"
    return summariser.refs.reserve(obj, scope)


def _bound_receiver(summariser: ScriptSummariser, parent: Node | None) -> str:
    """``function () {}.bind(x)``: the ref of ``x`` ("" when not bound). ``parent``: the
    function's (:func:`_up`, found once: a node's parent is a walk down from the root)."""
    if parent is None or parent.type != "member_expression":
        return ""
    if summariser.text(parent.child_by_field_name("property")) != "bind":
        return ""
    call = parent.parent
    arguments = call.child_by_field_name("arguments") if call is not None else None
    if call is None or call.type != "call_expression" or arguments is None:
        return ""
    first = arguments.named_children[0] if arguments.named_children else None
    return summariser.ref(first) if first is not None else "?"


def bind_parameters(summariser: ScriptSummariser, node: Node, qname: str) -> None:
    """A function's parameters: bound in its scope (an annotated one to an instance of its
    type, the others to what callers pass), listed in ``params`` (``*rest``; a destructured
    one as ``?``) with their defaults; a parameter property (``constructor(private x:
    T)``) is an attribute of the class too; the return type is what it returns."""
    scope = summariser.scopes[qname]
    line = node.start_point[0] + 1
    params = node.child_by_field_name("parameters")
    single = node.child_by_field_name("parameter")  # `x => ...`
    children = [single] if single is not None else (params.named_children if params else [])
    class_scope = summariser.scopes.get(scope["parent"] or "")
    entries: list[str] = []
    for param in children:
        if param.type == "comment":
            continue
        pattern = param.child_by_field_name("pattern") or param
        default = param.child_by_field_name("value")
        if pattern.type == "this":  # TS: `this: T` declares `this`, it is not passed
            continue
        if pattern.type == "assignment_pattern":
            default = pattern.child_by_field_name("right")
            pattern = pattern.child_by_field_name("left") or pattern
        kind = "pos"
        if pattern.type == "rest_pattern":
            kind = "star"
            pattern = pattern.named_children[0] if pattern.named_children else pattern
        if pattern.type != "identifier":
            entries.append(param_entry("?", kind))
            continue
        name = summariser.text(pattern)
        refs = summariser.type_refs(param.child_by_field_name("type"))
        bindings: list[Binding] = [Annotated("ann", r, line) for r in refs]
        bindings = bindings or [Parameter("param", len(entries), line)]
        entries.append(param_entry(name, kind))
        for binding in bindings:
            add_binding(scope, name, binding)
        if default is not None:
            ref = summariser.ref(default)
            if ref != UNKNOWN:
                scope.setdefault("defaults", {})[str(len(entries) - 1)] = ref
        is_property = any(c.type == "accessibility_modifier" for c in param.children)
        if is_property and class_scope is not None and class_scope["kind"] == "class":
            attrs = class_scope.setdefault("attrs", {})
            for binding in bindings:
                attrs.setdefault(name, []).append(ScopedBinding(qname, binding))
    if entries:
        scope["params"] = entries
    for ref in summariser.type_refs(node.child_by_field_name("return_type")):
        scope.setdefault("returns", []).append(Annotated("ann", ref, line))
    body = node.child_by_field_name("body")
    if body is not None and body.type != "statement_block":  # `x => expr` returns expr
        summariser.expression_bodies.append((body, qname))
    name = qname.rpartition(".")[2]
    if name in summariser.constructors and node.type != "arrow_function":
        scope.setdefault("returns", []).append(Assigned("val", f"{name}(!)", line))
        scope["receiver"] = f"{name}(!)"


def _up(node: Node) -> Node | None:
    """The parent, past parentheses and type assertions."""
    parent = node.parent
    while parent is not None and parent.type in _SEE_THROUGH:
        parent = parent.parent
    return parent


def _is(a: Node | None, b: Node) -> bool:
    """Whether ``a`` is ``b``, or holds it through parentheses and type assertions."""
    while a is not None and a.type in _SEE_THROUGH and a.id != b.id:
        a = a.named_children[0] if a.named_children else None
    return a is not None and a.id == b.id
