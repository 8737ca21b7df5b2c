"""TS/JS declarations -> definitions and scopes: the summariser's first pass, for
:mod:`kgraph.codegraph.parse_ts`.

Functions, classes, methods, interfaces, type aliases and enums are defined in document
order, before any other node is handled: a definition with a body opens a scope
(:mod:`~kgraph.codegraph.spans`), and every later node needs its scope. A function value
(an arrow, a function expression, a class field or a variable holding one) is defined here
too, named by where it goes (:mod:`~kgraph.codegraph.script_functions`), so that when the
values are bound (:mod:`~kgraph.codegraph.script_bindings`) each function already has the
name its ref (``@name``) uses. Declarators are met here only for that and for
destructured ``require``s; their other values wait for the second pass.

Functions taking the summariser: the handlers of the definition captures and a helper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from kgraph.codegraph.script_functions import (
    FUNCTION_VALUES,
    Named,
    bind_parameters,
    define_value,
    on_object_method,
)
from kgraph.codegraph.script_modules import require_source
from kgraph.codegraph.summary import (
    UNKNOWN,
    Assigned,
    Defined,
    Import,
    ImportedName,
    add_binding,
    new_scope,
)

if TYPE_CHECKING:
    from kgraph.codegraph.parse_ts import ScriptSummariser


def define(
    summariser: ScriptSummariser, node: Node, scope: str, name: str, kind: str, body: Node | None
) -> str:
    """Define ``name`` (a ``kind``) in ``scope``, exported with its statement; with a
    ``body``, open its scope. Its qualified name."""
    qname = f"{scope}.{name}" if scope else name
    line = node.start_point[0] + 1
    parent = node.parent
    exported = parent is not None and parent.type == "export_statement"
    if kind != "method":
        add_binding(summariser.scopes[scope], name, Defined("def", qname, line))
    if exported and scope == "":
        summariser.summary["exports"][name] = Defined("def", qname, line)
        if any(c.type == "default" for c in parent.children):  # type: ignore[union-attr]
            summariser.summary["exports"]["default"] = Defined("def", qname, line)
    if qname not in summariser.summary["defs"]:
        summariser.summary["defs"][qname] = {
            "kind": kind,
            "line": line,
            "end": node.end_point[0] + 1,
            "exported": exported,
        }
    if body is not None:
        summariser.spans.enter(node, qname, body.start_byte)
        if qname not in summariser.scopes:
            scope_kind = "class" if kind in ("class", "interface") else "function"
            summariser.scopes[qname] = new_scope(scope_kind, scope)
    return qname


def on_func(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    body = node.child_by_field_name("body")
    if name:
        kind = "method" if summariser.scopes[scope]["kind"] == "class" else "function"
        qname = define(summariser, node, scope, name, kind, body)
        if qname not in summariser.scopes:
            return
        if kind == "function":
            summariser.scopes[qname]["receiver"] = "?"  # a plain function's `this`: unknown
        bind_parameters(summariser, node, qname)


def on_class(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    if not name:
        return
    qname = define(summariser, node, scope, name, "class", node.child_by_field_name("body"))
    info = summariser.summary["defs"][qname]
    bases: list[str] = []
    implements: list[str] = []
    for heritage in (c for c in node.named_children if c.type == "class_heritage"):
        for clause in heritage.named_children:
            if clause.type == "extends_clause":
                bases.append(summariser.ref(clause.child_by_field_name("value")))
            elif clause.type == "implements_clause":
                implements.extend(r for c in clause.named_children for r in summariser.type_refs(c))
            else:  # JavaScript: class A extends <expression>
                bases.append(summariser.ref(clause))
    info["bases"] = [b for b in bases if b != UNKNOWN]
    info["implements"] = implements


def on_method(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    if not name:
        return
    if summariser.scopes[scope]["kind"] != "class":
        parent = node.parent
        if parent is not None and parent.type == "object":
            on_object_method(summariser, node, scope)
        return
    body = node.child_by_field_name("body")
    qname = define(summariser, node, scope, name, "method", body)
    if body is not None:
        bind_parameters(summariser, node, qname)


def on_field(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """A class field holding a function is a method (``onClick = () => {}``); other
    fields are bound once every function is named
    (:func:`~kgraph.codegraph.script_bindings.on_field_value`)."""
    name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
    name = summariser.text(name_node)
    value = node.child_by_field_name("value")
    if (
        name
        and summariser.scopes[scope]["kind"] == "class"
        and value is not None
        and value.type in FUNCTION_VALUES
    ):
        define_value(summariser, value, scope, Named(name, ""))


def on_var(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """Destructured ``require``s and function values; other values are bound once every
    function is named (:func:`~kgraph.codegraph.script_bindings.on_var_value`)."""
    name_node = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    line = node.start_point[0] + 1
    if name_node is None:
        return
    if name_node.type == "object_pattern":  # const { a, b: c } = require("./m")
        module = require_source(summariser, value)
        if module is None:
            return  # the members of a value: bound once every function is named
        names = [
            summariser.text(p.child_by_field_name("key") if p.type == "pair_pattern" else p)
            for p in name_node.named_children
        ]
        summariser.summary["imports"].append(Import(scope, module, 0, names, line))
        for prop in name_node.named_children:
            key = prop.child_by_field_name("key") if prop.type == "pair_pattern" else prop
            alias = prop.child_by_field_name("value") if prop.type == "pair_pattern" else prop
            binding = ImportedName("from", module, 0, summariser.text(key), line)
            add_binding(summariser.scopes[scope], summariser.text(alias), binding)
        return
    if value is None or value.type not in FUNCTION_VALUES or name_node.type != "identifier":
        return
    name = summariser.text(name_node)
    qname = define_value(summariser, value, scope, Named(name, ""))
    add_binding(summariser.scopes[scope], name, Defined("def", qname, line))
    if exported_declarator(node) and scope == "":
        summariser.summary["defs"][qname]["exported"] = True
        summariser.summary["exports"][name] = Assigned("val", name, line)


def exported_declarator(declarator: Node) -> bool:
    """Whether a ``variable_declarator`` is one of an ``export const/let/var``."""
    declaration = declarator.parent
    statement = declaration.parent if declaration is not None else None
    return statement is not None and statement.type == "export_statement"


def on_iface(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    if name:
        qname = define(summariser, node, scope, name, "interface", None)
        extends = [
            r
            for c in node.named_children
            if c.type == "extends_type_clause"
            for t in c.named_children
            for r in summariser.type_refs(t)
        ]
        summariser.summary["defs"][qname]["bases"] = extends


def on_alias(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    if name:
        define(summariser, node, scope, name, "type", None)


def on_enum(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    name = summariser.text(node.child_by_field_name("name"))
    if name:
        define(summariser, node, scope, name, "enum", None)
