"""TS/JS statements that bind names and store values -> the summary: the summariser's
second pass, for :mod:`kgraph.codegraph.parse_ts`.

Variables and class fields are bound to their values, assignments bind names, set
attributes of ``this`` or store into literals, and returns are what a function gives. They
wait for the first pass (:mod:`~kgraph.codegraph.script_definitions`) because a value may
be a function defined anywhere in the file, and its ref (``@name``) needs its name. A
value is kept as a ref only where it can be followed (:mod:`~kgraph.codegraph.script_refs`
keeps the arguments, literals and stores that may hold a function); the rest is
``Unknown``.

Functions taking the summariser: the handlers of these captures and a helper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from kgraph.codegraph.script_definitions import exported_declarator
from kgraph.codegraph.script_functions import FUNCTION_VALUES
from kgraph.codegraph.script_modules import commonjs_export, require_source
from kgraph.codegraph.script_resolve import WHOLE_EXPORTS
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Assigned,
    Binding,
    Import,
    ImportedName,
    Scope,
    ScopedBinding,
    Unknown,
    add_binding,
)

if TYPE_CHECKING:
    from kgraph.codegraph.parse_ts import ScriptSummariser


def on_field_value(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
    name = summariser.text(name_node)
    value = node.child_by_field_name("value")
    class_scope = summariser.scopes[scope]
    if not name or class_scope["kind"] != "class":
        return
    if value is not None and value.type in FUNCTION_VALUES:
        return
    line = node.start_point[0] + 1
    bindings: list[Binding] = [
        Annotated("ann", r, line) for r in summariser.type_refs(node.child_by_field_name("type"))
    ]
    ref = summariser.ref(value) if value is not None else UNKNOWN
    if ref != UNKNOWN:
        bindings.append(Assigned("val", ref, line))
    for binding in bindings or [Unknown("unk", line)]:
        add_binding(class_scope, name, binding)


def on_var_value(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name_node = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    line = node.start_point[0] + 1
    if name_node is None:
        return
    if name_node.type == "object_pattern":  # const { a, b: c = f } = obj
        if require_source(summariser, value) is None:
            summariser.refs.destructure(name_node, value, scope, line)
        return
    if name_node.type == "array_pattern":  # const [a, b] = pair
        summariser.refs.destructure_array(name_node, value, scope, line)
        return
    if value is not None and value.type in FUNCTION_VALUES and name_node.type == "identifier":
        return
    name = summariser.text(name_node)
    module = require_source(summariser, value)
    bindings: list[Binding] = [
        Annotated("ann", r, line) for r in summariser.type_refs(node.child_by_field_name("type"))
    ]
    if module is not None:  # the module's exports (or what `module.exports` was set to)
        bindings.append(ImportedName("from", module, 0, WHOLE_EXPORTS, line))
        summariser.summary["imports"].append(Import(scope, module, 0, [], line))
    elif value is not None and value.type == "member_expression":
        member = require_source(summariser, value.child_by_field_name("object"))
        if member is not None:  # require("./m").name
            attr = summariser.text(value.child_by_field_name("property"))
            bindings.append(ImportedName("from", member, 0, attr, line))
            summariser.summary["imports"].append(Import(scope, member, 0, [attr], line))
    if value is not None and not bindings:
        ref = summariser.ref(value)
        bindings.append(Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line))
    for made in bindings or [Unknown("unk", line)]:
        add_binding(summariser.scopes[scope], name, made)
    if scope == "" and exported_declarator(node):
        summariser.summary["defs"].setdefault(
            name,
            {"kind": "variable", "line": line, "end": node.end_point[0] + 1, "exported": True},
        )
        summariser.summary["exports"][name] = Assigned("val", name, line)


def on_assign(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if left is None or right is None:
        return
    line = node.start_point[0] + 1
    target = summariser.text(left)
    if scope == "" and (
        target in ("module.exports", "exports")
        or target.startswith(("module.exports.", "exports."))
    ):
        commonjs_export(summariser, target, right, line)
        return
    if left.type == "identifier":
        ref = summariser.ref(right)
        value = Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line)
        add_binding(summariser.scopes[scope], target, value)
    elif left.type == "member_expression":
        obj = left.child_by_field_name("object")
        found = class_of(summariser, scope) if obj is not None and obj.type == "this" else None
        if found is not None:
            ref = summariser.ref(right)
            value = Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line)
            attr = summariser.text(left.child_by_field_name("property"))
            found.setdefault("attrs", {}).setdefault(attr, []).append(ScopedBinding(scope, value))
        elif "prototype" not in target:  # Foo.prototype.m: a member by its name
            summariser.refs.store(left, right, scope)
    elif left.type == "subscript_expression":
        summariser.refs.store(left, right, scope)


def class_of(summariser: ScriptSummariser, scope: str) -> Scope | None:
    """The scope holding the attributes of what ``this`` is in ``scope`` (through
    arrows): its class, or its constructor function (``this.x = v`` in ``Foo`` or in
    ``Foo.prototype.m``); None for anything else."""
    scopes = summariser.scopes
    while scope:
        data = scopes[scope]
        receiver = data.get("receiver")
        if receiver is not None:
            name = receiver.removesuffix("(!)")
            if receiver == name:
                return None
            enclosing = data["parent"] or ""
            owner = scope if scope.rpartition(".")[2] == name else name
            if enclosing and owner != scope:
                owner = f"{enclosing}.{name}"
            return scopes.get(owner)
        parent = scopes.get(data["parent"] or "")
        if parent is not None and parent["kind"] == "class":
            return parent
        scope = data["parent"] or ""
    return None


def on_return(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    target = summariser.scopes[scope]
    if target["kind"] == "function" and node.named_children:
        ref = summariser.ref(node.named_children[0])
        if ref != UNKNOWN:
            target.setdefault("returns", []).append(Assigned("val", ref, node.start_point[0] + 1))
