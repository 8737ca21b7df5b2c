"""Java source -> :mod:`~kgraph.codegraph.summary` with tree-sitter.

Same shape as the other summarisers: one query, definitions and declarations first in
document order (classes, interfaces, enums and records open class scopes; methods and
constructors function scopes), then calls by byte offset (:mod:`~kgraph.codegraph.spans`).
How Java maps onto a summary:

- A class's methods are ``C.m``; a constructor is ``C.constructor`` (as in TS/JS: a class
  called, ``new C()``, runs it; ``super(...)`` is ``super.constructor()``); overloads
  share their name's definition. A nested class is ``C.Inner``; an anonymous class's
  methods and a lambda's body are part of the method they are written in, whose calls they
  make. ``extends`` gives a class's bases, ``implements`` its interfaces (an interface's
  ``extends``: its bases).
- Java scopes are resolved here, where the declarations are known: a name a method's
  scope does not declare is a member of the enclosing class (``helper()`` is
  ``this.helper()``, ``count`` is ``this.count``; an outer class's, from an inner class,
  is ``Outer.helper``), a type nested in an enclosing class is named from the file
  (``Kind`` is ``Outer.Kind``), and a capitalised name is a type: the file's, an
  import's, its package's or ``java.lang``'s (:mod:`.java_packages`).
- Types bind values: fields, parameters, locals, ``for`` and ``catch`` variables are
  instances of their declared type (an array: of its elements); ``var x = new C()`` and
  casts name the type too; a method returns an instance of its result type.
- Imports: ``import a.b.C`` binds ``C`` to the class ``C`` of package ``a.b``; ``import
  a.b.*`` is a star import of the package; ``import static a.b.C.m`` binds ``m`` to the
  member ``m`` of class ``a.b.C``. The file's package is stored under the name ``package``
  (a keyword: no Java name can shadow it); its top-level types are its exports.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.langs.common import grammar, in_source_order, syntax_errors
from kgraph.codegraph.langs.java_packages import PACKAGE_NAME
from kgraph.codegraph.langs.java_refs import TYPE_NODES, JavaExpressions
from kgraph.codegraph.summary import (
    UNKNOWN,
    Binding,
    Import,
    ImportedModule,
    Summary,
    add_binding,
    add_call,
    annotated,
    defined,
    imported_name,
    new_scope,
    unknown,
)

_TYPES: Final = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "class",
    "annotation_type_declaration": "interface",
}
_QUERY: Final = """
(package_declaration (_) @package)
(import_declaration) @import
(class_declaration) @type
(interface_declaration) @type
(enum_declaration) @type
(record_declaration) @type
(annotation_type_declaration) @type
(method_declaration) @method
(constructor_declaration) @method
(field_declaration) @field
(local_variable_declaration) @local
(enhanced_for_statement) @for
(catch_formal_parameter) @catch
(resource) @resource
(lambda_expression) @lambda
(method_invocation) @call
(object_creation_expression) @new
(explicit_constructor_invocation) @constructor
"""
_DECLARATIONS: Final = ("type", "method", "field", "local", "for", "catch", "resource", "lambda")


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    import tree_sitter_java

    return grammar(tree_sitter_java.language(), _QUERY)


class JavaSummariser(JavaExpressions):
    """Builds one file's summary (one instance a parse): a handler for each captured node."""

    def run(self) -> Summary:
        parser, query, error_query = _language()
        tree = parser.parse(self.source)
        captures = QueryCursor(query).captures(tree.root_node)
        module = self.scopes[""]
        for node in captures.get("package", ()):
            add_binding(module, PACKAGE_NAME, ImportedModule("mod", self.text(node), 1))
        for node in sorted(captures.get("import", ()), key=lambda n: n.start_byte):
            self.on_import(node)
        declarations = in_source_order(captures, _DECLARATIONS)
        for _start, name, node in declarations:
            getattr(self, f"on_{name}")(node, self.spans.enclosing(node))
        for name, handler in (
            ("call", self.on_call),
            ("new", self.on_new),
            ("constructor", self.on_constructor_call),
        ):
            for node, scope in self.spans.placed(captures.get(name, [])):
                handler(node, scope)
        self.summary["errors"] = syntax_errors(tree, error_query)
        return self.summary

    # -- scopes ---------------------------------------------------------------------------
    def _define(self, node: Node, qname: str, kind: str, exported: bool) -> None:
        if qname not in self.summary["defs"]:
            self.summary["defs"][qname] = {
                "kind": kind,
                "line": node.start_point[0] + 1,
                "end": node.end_point[0] + 1,
                "exported": exported,
            }

    @staticmethod
    def _modifiers(node: Node) -> str:
        found = next((c for c in node.children if c.type == "modifiers"), None)
        return found.text.decode("utf-8", "replace") if found is not None and found.text else ""

    def on_type(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name or not self._declared_here(node, scope):
            return
        qname = f"{scope}.{name}" if scope else name
        line = node.start_point[0] + 1
        owner = self.scopes[scope]
        add_binding(owner, name, defined(qname, line))
        if scope:
            self.nested.setdefault(self._class_of(scope) or scope, set()).add(name)
        else:
            self.summary["exports"][name] = defined(qname, line)
        public = scope == "" or "public" in self._modifiers(node)
        self._define(node, qname, _TYPES[node.type], public)
        body = node.child_by_field_name("body")
        self.spans.enter(node, qname, body.start_byte if body is not None else node.end_byte)
        self.scopes.setdefault(qname, new_scope("class", scope))
        info = self.summary["defs"][qname]
        superclass = node.child_by_field_name("superclass")
        interfaces = node.child_by_field_name("interfaces")
        extends = next((c for c in node.named_children if c.type == "extends_interfaces"), None)
        bases = [self._type_in(superclass, qname)] if superclass is not None else []
        if node.type == "enum_declaration":  # its members: values(), name(), ordinal()...
            bases.append("Enum")
            self._enum_constants(node, qname)
        if extends is not None:  # an interface's
            bases += self._types_in(extends, qname)
        info["bases"] = [b for b in bases if b]
        if interfaces is not None:
            info["implements"] = self._types_in(interfaces, qname)
        if node.type == "record_declaration":  # its components are its fields
            self._parameters(node.child_by_field_name("parameters"), qname, line)

    def _enum_constants(self, node: Node, qname: str) -> None:
        """An enum's constants: instances of it, in its class scope."""
        body = node.child_by_field_name("body")
        for constant in body.named_children if body is not None else ():
            if constant.type == "enum_constant":
                name = self.text(constant.child_by_field_name("name"))
                line = constant.start_point[0] + 1
                add_binding(self.scopes[qname], name, annotated(qname, line))

    def _declared_here(self, node: Node, scope: str) -> bool:
        """False for a declaration in an anonymous class's body (part of its method)."""
        parent = node.parent
        return not (
            parent is not None
            and parent.type == "class_body"
            and parent.parent is not None
            and parent.parent.type == "object_creation_expression"
        )

    def _type_in(self, node: Node, scope: str) -> str:
        inner = next((c for c in node.named_children if c.type in TYPE_NODES), None)
        return self.type_ref(inner, scope)

    def _types_in(self, node: Node, scope: str) -> list[str]:
        holder = next((c for c in node.named_children if c.type == "type_list"), node)
        refs = [self.type_ref(c, scope) for c in holder.named_children if c.type in TYPE_NODES]
        return [r for r in refs if r]

    def on_method(self, node: Node, scope: str) -> None:
        """A method or constructor of the class ``scope``."""
        line = node.start_point[0] + 1
        params = node.child_by_field_name("parameters")
        if not self._declared_here(node, scope) or self.scopes[scope]["kind"] != "class":
            self._parameters(params, scope, line)  # an anonymous class's
            return
        constructor = node.type == "constructor_declaration"
        name = "constructor" if constructor else self.text(node.child_by_field_name("name"))
        qname = f"{scope}.{name}"
        modifiers = self._modifiers(node)
        interface = self.summary["defs"].get(scope, {"kind": ""})["kind"] == "interface"
        self._define(node, qname, "method", interface or "public" in modifiers)
        body = node.child_by_field_name("body")
        self.spans.enter(node, qname, body.start_byte if body is not None else node.end_byte)
        method = self.scopes.get(qname)
        if method is None:
            method = self.scopes[qname] = new_scope("function", scope)
            if "static" in modifiers.split():
                method["method"] = "static"
        self._parameters(params, qname, line)
        returned = self.type_ref(node.child_by_field_name("type"), qname)
        if returned and "returns" not in method:
            method["returns"] = [annotated(returned, line)]

    def _parameters(self, params: Node | None, scope: str, line: int) -> None:
        """Bind parameters in ``scope``: instances of their declared types."""
        target = self.scopes[scope]
        for param in params.named_children if params is not None else ():
            kind = param.type
            if kind == "identifier":  # a lambda's untyped parameter
                add_binding(target, self.text(param), unknown(line))
                continue
            if kind not in ("formal_parameter", "spread_parameter"):
                continue
            name = param.child_by_field_name("name")
            if name is None:  # a spread parameter: Type... name
                declarator = next(
                    (c for c in param.named_children if c.type == "variable_declarator"), None
                )
                name = declarator.child_by_field_name("name") if declarator else None
            declared = next((c for c in param.named_children if c.type in TYPE_NODES), None)
            named = self.type_ref(declared, scope)
            if name is not None:
                binding = annotated(named, line) if named else unknown(line)
                add_binding(target, self.text(name), binding)

    def on_field(self, node: Node, scope: str) -> None:
        self._declare(node, scope, True)

    def on_local(self, node: Node, scope: str) -> None:
        self._declare(node, scope, False)

    def on_resource(self, node: Node, scope: str) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            line = node.start_point[0] + 1
            named = self.type_ref(node.child_by_field_name("type"), scope)
            binding = (
                annotated(named, line)
                if named
                else self.value(node.child_by_field_name("value"), scope, line)
            )
            add_binding(self.scopes[scope], self.text(name), binding)

    def _declare(self, node: Node, scope: str, field: bool) -> None:
        """``T a = x, b;``: each name an instance of ``T`` (``var``: of what ``x`` is)."""
        if field and self.scopes[scope]["kind"] != "class":
            return
        named = self.type_ref(node.child_by_field_name("type"), scope)
        target = self.scopes[scope]
        for declarator in node.children_by_field_name("declarator"):
            name = self.text(declarator.child_by_field_name("name"))
            line = declarator.start_point[0] + 1
            if named:
                binding: Binding = annotated(named, line)
            else:
                binding = self.value(declarator.child_by_field_name("value"), scope, line)
            if name:
                add_binding(target, name, binding)

    def on_for(self, node: Node, scope: str) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        line = node.start_point[0] + 1
        named = self.type_ref(node.child_by_field_name("type"), scope)
        binding = (
            annotated(named, line)
            if named
            else self.value(node.child_by_field_name("value"), scope, line)
        )
        add_binding(self.scopes[scope], self.text(name), binding)

    def on_catch(self, node: Node, scope: str) -> None:
        name = node.child_by_field_name("name")
        caught = next((c for c in node.named_children if c.type == "catch_type"), None)
        named = self._type_in(caught, scope) if caught is not None else ""
        if name is not None:
            line = node.start_point[0] + 1
            binding = annotated(named, line) if named else unknown(line)
            add_binding(self.scopes[scope], self.text(name), binding)

    def on_lambda(self, node: Node, scope: str) -> None:
        """A lambda's parameters are bound in the method it is written in (its body is
        part of that method)."""
        params = node.child_by_field_name("parameters")
        if params is not None and params.type == "identifier":
            add_binding(self.scopes[scope], self.text(params), unknown(node.start_point[0] + 1))
        elif params is not None:
            self._parameters(params, scope, node.start_point[0] + 1)

    # -- calls ----------------------------------------------------------------------------
    def on_call(self, node: Node, scope: str) -> None:
        callee = self.callee(node, scope)
        if callee != UNKNOWN:
            add_call(self.summary, scope, callee + "()", node.start_point[0] + 1)

    def on_new(self, node: Node, scope: str) -> None:
        named = self.type_ref(node.child_by_field_name("type"), scope)
        if named:
            add_call(self.summary, scope, named + "()", node.start_point[0] + 1)

    def on_constructor_call(self, node: Node, scope: str) -> None:
        """``super(...)``/``this(...)`` in a constructor: another constructor."""
        which = node.child_by_field_name("constructor")
        if which is not None and which.type in ("super", "this"):
            add_call(self.summary, scope, f"{which.type}.constructor()", node.start_point[0] + 1)

    # -- imports --------------------------------------------------------------------------
    def on_import(self, node: Node) -> None:
        named = next(
            (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")),
            None,
        )
        if named is None:
            return
        dotted = "".join(self.text(named).split())
        line = node.start_point[0] + 1
        static = any(c.type == "static" for c in node.children)
        star = any(c.type == "asterisk" for c in node.children)
        if star:
            self.summary["estar"].append(dotted)
            self.summary["imports"].append(Import("", dotted, 0, ["*"], line))
            return
        module, _, name = dotted.rpartition(".")
        if not module:
            return
        add_binding(self.scopes[""], name, imported_name(module, 0, name, line))
        self.summary["imports"].append(Import("", module, 0, [name], line))
        if static:
            self.static_imports.add(name)


def parse_java(source: bytes) -> Summary:
    """Summarise one Java file. Never raises on bad syntax: ERROR nodes are counted."""
    return JavaSummariser(source).run()
