"""TypeScript / TSX / JavaScript source -> :mod:`summary` with tree-sitter.

Same shape as the Python summariser: one query, definitions first (they open scopes:
functions, classes, methods, and arrow/function expressions bound to a name), then every
other node by byte offset (:mod:`~kgraph.codegraph.spans`). ES modules (named, default,
namespace imports; ``export`` declarations, lists, ``export ... from``, ``export *``) and
``require`` are recorded as bindings so the resolver can follow them (the module
statements: :mod:`~kgraph.codegraph.script_modules`); ``this.m()`` and ``super.m()``
resolve through ``extends``; ``new C()`` calls C's constructor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from kgraph.codegraph.script_modules import (
    commonjs_export,
    on_export,
    on_import,
    require_source,
)
from kgraph.codegraph.spans import Spans, document_order
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Assigned,
    Binding,
    Defined,
    Import,
    ImportedModule,
    ImportedName,
    Parameter,
    Scope,
    ScopedBinding,
    Summary,
    Unknown,
    add_binding,
    add_call,
    new_scope,
    new_summary,
)

_DEFINITIONS = {
    "func": ["function_declaration", "generator_function_declaration"],
    "class": ["class_declaration", "abstract_class_declaration"],
    "method": ["method_definition"],
    "field": ["public_field_definition", "field_definition"],
    "var": ["variable_declarator"],
    "iface": ["interface_declaration"],
    "alias": ["type_alias_declaration"],
    "enum": ["enum_declaration"],
}
_JS_ONLY_MISSING = {
    "public_field_definition",
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
}
_TS_ONLY_MISSING = {"field_definition"}
_OTHERS = {
    "import": "import_statement",
    "export": "export_statement",
    "assign": "assignment_expression",
    "return": "return_statement",
    "decorator": "decorator",
}
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")
_DOTTED_ASCII = re.compile(rb"[A-Za-z_$#][A-Za-z0-9_$]*(?:\.[A-Za-z_$#][A-Za-z0-9_$]*)*")
_LITERALS = {
    "string": "<str>",
    "template_string": "<str>",
    "array": "<list>",
    "number": "<int>",
    "object": "<obj>",
    "regex": "<regex>",
}
_TRANSPARENT = (
    "parenthesized_expression",
    "await_expression",
    "non_null_expression",
    "as_expression",
    "satisfies_expression",
    "type_assertion",
)


@lru_cache(maxsize=3)
def _language(dialect: str) -> tuple[Parser, Query, Query]:
    if dialect == "javascript":
        import tree_sitter_javascript

        language = Language(tree_sitter_javascript.language())
        missing = _JS_ONLY_MISSING
    else:
        import tree_sitter_typescript

        raw = (
            tree_sitter_typescript.language_tsx()
            if dialect == "tsx"
            else tree_sitter_typescript.language_typescript()
        )
        language = Language(raw)
        missing = _TS_ONLY_MISSING
    lines = [
        f"({t}) @{name}" for name, types in _DEFINITIONS.items() for t in types if t not in missing
    ]
    lines += [f"({t}) @{name}" for name, t in _OTHERS.items()]
    lines += ["(call_expression function: (_) @callee)", "(new_expression constructor: (_) @new)"]
    return Parser(language), Query(language, "\n".join(lines)), Query(language, "(ERROR) @e")


class ScriptSummariser:
    """Builds one file's summary (one instance a parse): handlers for each captured node."""

    def __init__(self, source: bytes, dialect: str) -> None:
        self.source = source
        self.scopes: dict[str, Scope] = {}
        self.summary = new_summary(dialect, self.scopes)
        self.spans = Spans()

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def run(self) -> Summary:
        parser, query, error_query = _language(self.summary["lang"])
        tree = parser.parse(self.source)
        captures = QueryCursor(query).captures(tree.root_node)
        definitions = sorted(
            ((n.start_byte, name, n) for name in _DEFINITIONS for n in captures.get(name, ())),
            key=lambda item: item[0],
        )
        for _start, name, node in definitions:
            getattr(self, f"on_{name}")(node, self.spans.enclosing(node))
        handlers: dict[str, Callable[[Node, str], None]] = {
            "import": partial(on_import, self),
            "export": partial(on_export, self),
            "assign": self.on_assign,
            "return": self.on_return,
            "decorator": self.on_decorator,
            "callee": self.on_callee,
            "new": self.on_new,
        }
        for name, handler in handlers.items():
            # Captures come in completion order, which varies from run to run: in document
            # order (nested nodes starting at one byte: the inner one first) instead.
            nodes, starts = document_order(captures.get(name, []))
            for node, scope in zip(nodes, self.spans.scopes_at(starts), strict=True):
                handler(node, scope)
        if tree.root_node.has_error:
            errors = QueryCursor(error_query).captures(tree.root_node).get("e", [])
            self.summary["errors"] = max(len(errors), 1)
        defs = self.summary["defs"]
        for binding in self.summary["exports"].values():  # `export { a }`, module.exports
            if isinstance(binding, Assigned) and binding.ref in defs:
                defs[binding.ref]["exported"] = True
        return self.summary

    # -- refs -----------------------------------------------------------------------------
    def ref(self, node: Node | None) -> str:
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind in ("identifier", "this", "super", "property_identifier", "type_identifier"):
            return self.text(node)
        if kind == "member_expression":
            raw = self.source[node.start_byte : node.end_byte]
            if _DOTTED_ASCII.fullmatch(raw):
                return raw.decode()
            prop = node.child_by_field_name("property")
            return f"{self.ref(node.child_by_field_name('object'))}.{self.text(prop)}"
        if kind == "call_expression":
            return self.ref(node.child_by_field_name("function")) + "()"
        if kind == "new_expression":
            return self.ref(node.child_by_field_name("constructor")) + "()"
        if kind in _TRANSPARENT:
            return self.ref(node.named_children[0]) if node.named_children else UNKNOWN
        return _LITERALS.get(kind, UNKNOWN)

    def type_refs(self, node: Node | None) -> list[str]:
        if node is None:
            return []
        kind = node.type
        if kind in ("type_identifier", "identifier"):
            return [self.text(node)]
        if kind == "nested_type_identifier":
            return [self.text(node).replace(" ", "")]
        if kind == "generic_type":
            return self.type_refs(node.child_by_field_name("name"))
        if kind in ("type_annotation", "union_type", "parenthesized_type"):
            return [r for child in node.named_children for r in self.type_refs(child)]
        return []

    # -- definitions ----------------------------------------------------------------------
    def _define(self, node: Node, scope: str, name: str, kind: str, body: Node | None) -> str:
        qname = f"{scope}.{name}" if scope else name
        line = node.start_point[0] + 1
        parent = node.parent
        exported = parent is not None and parent.type == "export_statement"
        if kind != "method":
            add_binding(self.scopes[scope], name, Defined("def", qname, line))
        if exported and scope == "":
            self.summary["exports"][name] = Defined("def", qname, line)
            if any(c.type == "default" for c in parent.children):  # type: ignore[union-attr]
                self.summary["exports"]["default"] = Defined("def", qname, line)
        if qname not in self.summary["defs"]:
            self.summary["defs"][qname] = {
                "kind": kind,
                "line": line,
                "end": node.end_point[0] + 1,
                "exported": exported,
            }
        if body is not None:
            self.spans.enter(node, qname, body.start_byte)
            if qname not in self.scopes:
                scope_kind = "class" if kind in ("class", "interface") else "function"
                self.scopes[qname] = new_scope(scope_kind, scope)
        return qname

    def on_func(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if name:
            kind = "method" if self.scopes[scope]["kind"] == "class" else "function"
            qname = self._define(node, scope, name, kind, body)
            self._function(node, qname)

    def _function(self, node: Node, qname: str) -> None:
        scope = self.scopes.get(qname)
        if scope is None:
            return
        line = node.start_point[0] + 1
        params = node.child_by_field_name("parameters")
        class_scope = self.scopes.get(scope["parent"] or "")
        for index, param in enumerate(params.named_children if params is not None else []):
            pattern = param.child_by_field_name("pattern") or param
            if pattern.type == "assignment_pattern":
                pattern = pattern.child_by_field_name("left") or pattern
            if pattern.type != "identifier":
                continue
            name = self.text(pattern)
            refs = self.type_refs(param.child_by_field_name("type"))
            bindings: list[Binding] = [Annotated("ann", r, line) for r in refs]
            bindings = bindings or [Parameter("param", index, line)]
            for binding in bindings:
                add_binding(scope, name, binding)
            is_property = any(c.type == "accessibility_modifier" for c in param.children)
            if is_property and class_scope is not None and class_scope["kind"] == "class":
                attrs = class_scope.setdefault("attrs", {})
                for binding in bindings:
                    attrs.setdefault(name, []).append(ScopedBinding(qname, binding))
        for ref in self.type_refs(node.child_by_field_name("return_type")):
            scope.setdefault("returns", []).append(Annotated("ann", ref, line))
        body = node.child_by_field_name("body")
        if body is not None and body.type != "statement_block":  # `x => expr` returns expr
            ref = self.ref(body)
            if ref != UNKNOWN:
                scope.setdefault("returns", []).append(Assigned("val", ref, line))

    def on_class(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qname = self._define(node, scope, name, "class", node.child_by_field_name("body"))
        info = self.summary["defs"][qname]
        bases: list[str] = []
        implements: list[str] = []
        for heritage in (c for c in node.named_children if c.type == "class_heritage"):
            for clause in heritage.named_children:
                if clause.type == "extends_clause":
                    bases.append(self.ref(clause.child_by_field_name("value")))
                elif clause.type == "implements_clause":
                    implements.extend(r for c in clause.named_children for r in self.type_refs(c))
                else:  # JavaScript: class A extends <expression>
                    bases.append(self.ref(clause))
        info["bases"] = [b for b in bases if b != UNKNOWN]
        info["implements"] = implements

    def on_method(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name and self.scopes[scope]["kind"] == "class":
            qname = self._define(node, scope, name, "method", node.child_by_field_name("body"))
            self._function(node, qname)

    def on_field(self, node: Node, scope: str) -> None:
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        name = self.text(name_node)
        value = node.child_by_field_name("value")
        class_scope = self.scopes[scope]
        if not name or class_scope["kind"] != "class":
            return
        line = node.start_point[0] + 1
        if value is not None and value.type in _FUNCTION_VALUES:
            qname = self._define(value, scope, name, "method", value.child_by_field_name("body"))
            self._function(value, qname)
            return
        bindings: list[Binding] = [
            Annotated("ann", r, line) for r in self.type_refs(node.child_by_field_name("type"))
        ]
        if value is not None and self.ref(value) != UNKNOWN:
            bindings.append(Assigned("val", self.ref(value), line))
        for binding in bindings or [Unknown("unk", line)]:
            add_binding(class_scope, name, binding)

    def on_var(self, node: Node, scope: str) -> None:
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        line = node.start_point[0] + 1
        if name_node is None:
            return
        if name_node.type == "object_pattern":  # const { a, b: c } = require("./m")
            module = require_source(self, value)
            if module is not None:
                names = [
                    self.text(p.child_by_field_name("key") if p.type == "pair_pattern" else p)
                    for p in name_node.named_children
                ]
                self.summary["imports"].append(Import(scope, module, 0, names, line))
            for prop in name_node.named_children:
                key = prop.child_by_field_name("key") if prop.type == "pair_pattern" else prop
                alias = prop.child_by_field_name("value") if prop.type == "pair_pattern" else prop
                binding: Binding = (
                    ImportedName("from", module, 0, self.text(key), line)
                    if module is not None
                    else Unknown("unk", line)
                )
                add_binding(self.scopes[scope], self.text(alias), binding)
            return
        name = self.text(name_node)
        declaration = node.parent
        statement = declaration.parent if declaration is not None else None
        exported = statement is not None and statement.type == "export_statement"
        if value is not None and value.type in _FUNCTION_VALUES:
            kind = "method" if self.scopes[scope]["kind"] == "class" else "function"
            qname = f"{scope}.{name}" if scope else name
            self.summary["defs"].setdefault(
                qname,
                {"kind": kind, "line": line, "end": node.end_point[0] + 1, "exported": exported},
            )
            add_binding(self.scopes[scope], name, Defined("def", qname, line))
            self.spans.enter(value, qname, (value.child_by_field_name("body") or value).start_byte)
            self.scopes.setdefault(qname, new_scope("function", scope))
            self._function(value, qname)
        else:
            module = require_source(self, value)
            bindings: list[Binding] = [
                Annotated("ann", r, line) for r in self.type_refs(node.child_by_field_name("type"))
            ]
            if module is not None:
                bindings.append(ImportedModule("mod", module, line))
                self.summary["imports"].append(Import(scope, module, 0, [], line))
            elif value is not None:
                ref = self.ref(value)
                bindings.append(
                    Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line)
                )
            for made in bindings or [Unknown("unk", line)]:
                add_binding(self.scopes[scope], name, made)
            if exported and scope == "":
                self.summary["defs"].setdefault(
                    name,
                    {
                        "kind": "variable",
                        "line": line,
                        "end": node.end_point[0] + 1,
                        "exported": True,
                    },
                )
        if exported and scope == "":
            self.summary["exports"][name] = Assigned("val", name, line)

    def on_iface(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            qname = self._define(node, scope, name, "interface", None)
            extends = [
                r
                for c in node.named_children
                if c.type == "extends_type_clause"
                for t in c.named_children
                for r in self.type_refs(t)
            ]
            self.summary["defs"][qname]["bases"] = extends

    def on_alias(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            self._define(node, scope, name, "type", None)

    def on_enum(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            self._define(node, scope, name, "enum", None)

    # -- other nodes ----------------------------------------------------------------------
    def on_assign(self, node: Node, scope: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return
        line = node.start_point[0] + 1
        ref = self.ref(right)
        value = Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line)
        target = self.text(left)
        if scope == "" and (
            target in ("module.exports", "exports")
            or target.startswith(("module.exports.", "exports."))
        ):
            commonjs_export(self, target, right, line)
        elif left.type == "identifier":
            add_binding(self.scopes[scope], target, value)
        elif left.type == "member_expression":
            obj = left.child_by_field_name("object")
            if obj is not None and obj.type == "this":
                found = self._class_of(scope)
                if found is not None:
                    attr = self.text(left.child_by_field_name("property"))
                    found.setdefault("attrs", {}).setdefault(attr, []).append(
                        ScopedBinding(scope, value)
                    )

    def _class_of(self, scope: str) -> Scope | None:
        while scope:
            data = self.scopes[scope]
            parent = self.scopes.get(data["parent"] or "")
            if parent is not None and parent["kind"] == "class":
                return parent
            scope = data["parent"] or ""
        return None

    def on_return(self, node: Node, scope: str) -> None:
        target = self.scopes[scope]
        if target["kind"] == "function" and node.named_children:
            ref = self.ref(node.named_children[0])
            if ref != UNKNOWN:
                target.setdefault("returns", []).append(
                    Assigned("val", ref, node.start_point[0] + 1)
                )

    def on_decorator(self, node: Node, scope: str) -> None:
        if node.named_children:
            ref = self.ref(node.named_children[0])
            if ref != UNKNOWN:
                add_call(self.summary, scope, ref + "()", node.start_point[0] + 1)

    def on_callee(self, node: Node, scope: str) -> None:
        raw = self.source[node.start_byte : node.end_byte]
        ref = raw.decode() if _DOTTED_ASCII.fullmatch(raw) else self.ref(node)
        if ref not in (UNKNOWN, "require", "super", "import"):
            add_call(self.summary, scope, ref + "()", node.start_point[0] + 1)
        elif ref == "super":  # super(...) in a constructor calls the base constructor
            add_call(self.summary, scope, "super.constructor()", node.start_point[0] + 1)

    def on_new(self, node: Node, scope: str) -> None:
        ref = self.ref(node)  # `new C(...)` is the ref `C()`: a call of C
        if ref != UNKNOWN:
            add_call(self.summary, scope, ref, node.start_point[0] + 1)


def parse_script(source: bytes, dialect: str) -> Summary:
    """Summarise one TS/TSX/JS file (``dialect``: typescript|tsx|javascript). Never raises
    on bad syntax: ERROR nodes are counted."""
    return ScriptSummariser(source, dialect).run()
