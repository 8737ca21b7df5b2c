"""TS/JS module statements -> the summary, for :mod:`kgraph.codegraph.parse_ts`.

ES modules (named, default and namespace imports; ``export`` lists, ``export ... from``,
``export *``, ``export default``) and CommonJS (``require``, ``module.exports``/``exports``)
are recorded as bindings, exports and import records so the resolver can follow them.
Functions taking the summariser: the handlers of these statements and their helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from kgraph.codegraph.script_resolve import WHOLE_EXPORTS
from kgraph.codegraph.summary import (
    UNKNOWN,
    Assigned,
    Import,
    ImportedModule,
    ImportedName,
    add_binding,
)

if TYPE_CHECKING:
    from kgraph.codegraph.parse_ts import ScriptSummariser


def on_import(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """``import d, * as ns, { a as b } from "m"``: bindings and the import record."""
    module = string_value(summariser, node.child_by_field_name("source"))
    line = node.start_point[0] + 1
    target = summariser.scopes[scope]
    names: list[str] = []
    for clause in (c for c in node.named_children if c.type == "import_clause"):
        for part in clause.named_children:
            if part.type == "identifier":
                add_binding(
                    target, summariser.text(part), ImportedName("from", module, 0, "default", line)
                )
                names.append("default")
            elif part.type == "namespace_import":
                for ident in part.named_children:
                    add_binding(target, summariser.text(ident), ImportedModule("mod", module, line))
            elif part.type == "named_imports":
                for spec in part.named_children:
                    name = summariser.text(spec.child_by_field_name("name"))
                    alias = summariser.text(spec.child_by_field_name("alias")) or name
                    add_binding(target, alias, ImportedName("from", module, 0, name, line))
                    names.append(name)
    summariser.summary["imports"].append(Import(scope, module, 0, names, line))


def on_export(summariser: ScriptSummariser, node: Node, scope: str) -> None:
    """``export`` lists, ``export ... from``, ``export * from``, ``export default <expr>``
    (exported declarations are recorded where they are defined)."""
    if scope != "":
        return
    line = node.start_point[0] + 1
    source = node.child_by_field_name("source")
    module = string_value(summariser, source) if source is not None else None
    exports = summariser.summary["exports"]
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
    if clause is not None:
        names = []
        for spec in clause.named_children:
            name = summariser.text(spec.child_by_field_name("name"))
            alias = summariser.text(spec.child_by_field_name("alias")) or name
            exports[alias] = (
                ImportedName("from", module, 0, name, line)
                if module is not None
                else Assigned("val", name, line)
            )
            names.append(name)
        if module is not None:
            summariser.summary["imports"].append(Import("", module, 0, names, line))
    elif namespace is not None and module is not None:
        for ident in namespace.named_children:
            exports[summariser.text(ident)] = ImportedModule("mod", module, line)
        summariser.summary["imports"].append(Import("", module, 0, [], line))
    elif module is not None:
        summariser.summary["estar"].append(module)
        summariser.summary["imports"].append(Import("", module, 0, [], line))
    elif any(c.type == "default" for c in node.children):
        value = node.child_by_field_name("value")
        if value is not None and node.child_by_field_name("declaration") is None:
            ref = summariser.ref(value)
            if ref != UNKNOWN:
                exports["default"] = Assigned("val", ref, line)


def commonjs_export(summariser: ScriptSummariser, target: str, right: Node, line: int) -> None:
    """``module.exports = {a, b: c, d() {}}`` / ``exports.a = f`` / ``module.exports = X``:
    the exports by name; what ``module.exports`` was set to is also the module's default
    export and, under :data:`WHOLE_EXPORTS`, what ``require`` gives."""
    exports = summariser.summary["exports"]
    name = (
        target.rsplit(".", 1)[-1]
        if target.count(".") >= (2 if target.startswith("module.") else 1)
        else None
    )
    if name is not None:
        ref = summariser.ref(right)
        if ref != UNKNOWN:
            exports[name] = Assigned("val", ref, line)
        return
    if right.type == "object":
        for prop in right.named_children:
            if prop.type == "shorthand_property_identifier":
                exports[summariser.text(prop)] = Assigned("val", summariser.text(prop), line)
            elif prop.type in ("pair", "method_definition"):
                field = "key" if prop.type == "pair" else "name"
                key = summariser.text(prop.child_by_field_name(field)).strip("'\"")
                value = prop.child_by_field_name("value") if prop.type == "pair" else prop
                ref = summariser.ref(value)
                if ref != UNKNOWN:
                    exports[key] = Assigned("val", ref, line)
    ref = summariser.ref(right)
    if ref != UNKNOWN:
        exports["default"] = Assigned("val", ref, line)
        exports[WHOLE_EXPORTS] = Assigned("val", ref, line)


def require_source(summariser: ScriptSummariser, value: Node | None) -> str | None:
    """``require("./m")`` -> ``"./m"``."""
    if value is None or value.type != "call_expression":
        return None
    function = value.child_by_field_name("function")
    arguments = value.child_by_field_name("arguments")
    if summariser.text(function) != "require" or arguments is None or not arguments.named_children:
        return None
    first = arguments.named_children[0]
    return string_value(summariser, first) if first.type == "string" else None


def string_value(summariser: ScriptSummariser, node: Node | None) -> str:
    """A string literal's text without its quotes."""
    return summariser.text(node).strip("'\"`") if node is not None else ""
