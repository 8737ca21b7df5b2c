"""Go source -> :mod:`~kgraph.codegraph.summary` with tree-sitter; ``go.mod`` -> its module
path.

Same shape as the TS/JS summariser: one query, definitions first in document order (they
open scopes: functions, methods, and function literals bound to a name), then the other
nodes by byte offset (:mod:`~kgraph.codegraph.spans`). How Go maps onto a summary:

- A method ``func (s *T) M()`` is the definition ``T.M`` (kind ``method``) wherever it is
  declared; its scope's parent is the file (a Go type has no body holding its methods),
  and the receiver ``s`` is annotated with ``T``. A struct, and any defined type (which
  can have methods: ``type Kind string``), is a ``class``; an interface an ``interface``
  whose method specs are methods ``I.M``; an alias a ``type`` whose name holds the type
  it names. A struct's fields are the
  names of its class scope, annotated with their types; an embedded field is also a base
  (its members are promoted).
- Types are what bind values: parameters, ``var x T``, composite literals ``T{}``/``&T{}``,
  ``new(T)`` and type assertions ``x.(T)`` annotate a name with a type; ``x := f()``
  assigns what ``f`` returns: an instance of its result's type, or of several results a
  tuple (``a, err := f()`` binds ``a`` to ``f()[0]``). A slice, array, map or channel is
  typed as its elements (they have no methods; what reaches one is an element, by index
  or ``range``). Keys, type-switch aliases and values of function types are unknown, so
  they shadow package-level names without pointing anywhere.
- A function literal bound to a name (``run := func() {...}``) is a function of its
  scope (``F.run``); any other (``go func(){...}()``, ``defer func(){...}()``, a callback)
  belongs to the function it is written in, whose calls it makes, and its parameters are
  bound there.
- Imports bind their package name (the alias, or the import path's last element without
  a major version or ``go-`` prefix) to the import path; ``Import.names`` lists the names
  the file uses as ``pkg.Name``, so the import edges name what is used. The file's package
  name is stored under the name ``package`` (a keyword: no Go name can shadow it), where
  the resolver finds a file's package (:mod:`.go_packages`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.langs.common import grammar, in_source_order, syntax_errors
from kgraph.codegraph.langs.go_packages import MODULE_NAME, PACKAGE_NAME, default_package_name
from kgraph.codegraph.langs.go_refs import GoExpressions
from kgraph.codegraph.summary import (
    UNKNOWN,
    Binding,
    Container,
    Import,
    ImportedModule,
    Scope,
    Summary,
    add_binding,
    annotated,
    assigned,
    defined,
    new_scope,
    new_summary,
    parameter,
    unknown,
)

_DEFINITIONS: Final = ("func", "method", "type", "alias", "var", "const", "short")
_QUERY: Final = """
(package_clause (package_identifier) @package)
(import_spec) @import
(function_declaration) @func
(method_declaration) @method
(type_spec) @type
(type_alias) @alias
(var_spec) @var
(const_spec) @const
(short_var_declaration) @short
(range_clause) @range
(type_switch_statement) @switch
(func_literal) @closure
(call_expression function: (_) @callee)
"""


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    import tree_sitter_go

    return grammar(tree_sitter_go.language(), _QUERY)


class GoSummariser(GoExpressions):
    """Builds one file's summary (one instance a parse): a handler for each captured node
    (expressions, types and calls: :class:`~.go_refs.GoExpressions`)."""

    def run(self) -> Summary:
        parser, query, error_query = _language()
        tree = parser.parse(self.source)
        captures = QueryCursor(query).captures(tree.root_node)
        module = self.scopes[""]
        for node in captures.get("package", ()):
            add_binding(module, PACKAGE_NAME, ImportedModule("mod", self.text(node), 1))
        for node in sorted(captures.get("import", ()), key=lambda n: n.start_byte):
            self.on_import(node)
        definitions = in_source_order(captures, _DEFINITIONS)
        handlers = {
            "func": self.on_func,
            "method": self.on_method,
            "type": self.on_type,
            "alias": self.on_alias,
            "var": self.on_var,
            "const": self.on_var,
            "short": self.on_short,
        }
        for _start, name, node in definitions:
            handlers[name](node, self.spans.enclosing(node))
        for name, handler in (
            ("range", self.on_range),
            ("switch", self.on_switch),
            ("closure", self.on_closure),
            ("callee", self.on_callee),
        ):
            for node, scope in self.spans.placed(captures.get(name, [])):
                handler(node, scope)
        self.summary["errors"] = syntax_errors(tree, error_query)
        self._import_names()
        return self.summary

    # -- refs and types -------------------------------------------------------------------
    def _returns(self, scope: Scope, result: Node | None, line: int) -> None:
        """What calling the function gives: an instance of its result's type; of several
        results, a tuple of them (``a, err := f()`` binds ``a`` to ``f()[0]``)."""
        types = self.results(result)
        if len(types) == 1 and types[0]:
            scope["returns"] = [annotated(types[0], line)]
        elif len(types) > 1 and any(types):
            containers = scope.setdefault("containers", [])
            refs = [t + "(!)" if t else UNKNOWN for t in types]
            containers.append(Container("tuple", list(range(len(types))), refs, line))
            scope["returns"] = [assigned(f"<#{len(containers) - 1}>", line)]

    # -- definitions ----------------------------------------------------------------------
    def _define(self, node: Node, qname: str, kind: str, name: str) -> None:
        if qname not in self.summary["defs"]:
            self.summary["defs"][qname] = {
                "kind": kind,
                "line": node.start_point[0] + 1,
                "end": node.end_point[0] + 1,
                "exported": name[:1].isupper(),
            }

    def _function(self, node: Node, qname: str, parent: str) -> Scope:
        """Open the function scope ``qname`` over ``node``: its parameters and results."""
        body = node.child_by_field_name("body")  # none: a function implemented elsewhere
        self.spans.enter(node, qname, body.start_byte if body is not None else node.end_byte)
        scope = self.scopes.get(qname)
        if scope is None:
            scope = self.scopes[qname] = new_scope("function", parent)
        line = node.start_point[0] + 1
        self._parameters(node.child_by_field_name("parameters"), scope, line, True)
        result = node.child_by_field_name("result")
        if result is not None and result.type == "parameter_list":  # named results
            self._parameters(result, scope, line)
        self._returns(scope, result, line)
        return scope

    def _parameters(self, params: Node | None, scope: Scope, line: int, own: bool = False) -> None:
        """Bind parameters (and named results) in ``scope``: an instance of their type; a
        parameter of a function type (``own``: the scope's own parameters) holds what
        callers pass (:mod:`~kgraph.codegraph.flow` follows it where it is called)."""
        positions = scope.setdefault("params", []) if own else []
        for param in params.named_children if params is not None else ():
            kind = param.type
            if kind not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue  # a comment
            declared = param.child_by_field_name("type")
            named = self.type_ref(declared)
            names: list[Node | None] = list(param.children_by_field_name("name"))
            for name_node in names or [None]:
                name = self.text(name_node) or "_"
                if kind == "variadic_parameter_declaration":
                    binding: Binding = unknown(line)
                    positions.append("*" + name)
                elif own and declared is not None and declared.type == "function_type":
                    binding = parameter(len(positions), line)
                    positions.append(name)
                else:
                    binding = annotated(named, line) if named else unknown(line)
                    positions.append(name)
                if name != "_":
                    add_binding(scope, name, binding)

    def on_func(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            qname = f"{scope}.{name}" if scope else name
            self._define(node, qname, "function", name)
            if name != "init":  # a package may have many: none can be referred to
                add_binding(self.scopes[scope], name, defined(qname, node.start_point[0] + 1))
            self._function(node, qname, scope)

    def on_method(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        receiver = node.child_by_field_name("receiver")
        param = receiver.named_children[0] if receiver and receiver.named_children else None
        owner = self.type_ref(param.child_by_field_name("type")) if param is not None else ""
        if not name or not owner or "." in owner:
            return
        qname = f"{owner}.{name}"
        self._define(node, qname, "method", name)
        method = self._function(node, qname, "")
        receiver_name = param.child_by_field_name("name") if param is not None else None
        if receiver_name is not None and self.text(receiver_name) != "_":
            add_binding(method, self.text(receiver_name), annotated(owner, node.start_point[0] + 1))

    def on_type(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        underlying = node.child_by_field_name("type")
        if not name or underlying is None:
            return
        qname = f"{scope}.{name}" if scope else name
        line = node.start_point[0] + 1
        add_binding(self.scopes[scope], name, defined(qname, line))
        if underlying.type == "interface_type":
            self._define(node, qname, "interface", name)
            self._interface(underlying, qname)
            return
        self._define(node, qname, "class", name)
        if underlying.type != "struct_type":
            return
        fields = self.scopes.setdefault(qname, new_scope("class", scope))
        bases = self.summary["defs"][qname].setdefault("bases", [])
        for declaration in (
            underlying.named_children[0].named_children if underlying.named_children else ()
        ):
            if declaration.type != "field_declaration":
                continue
            named = self.type_ref(declaration.child_by_field_name("type"))
            at = declaration.start_point[0] + 1
            binding = annotated(named, at) if named else unknown(at)
            names = declaration.children_by_field_name("name")
            for field in names:
                add_binding(fields, self.text(field), binding)
            if not names and named:  # embedded: promoted members, and a field of its name
                bases.append(named)
                add_binding(fields, named.rpartition(".")[2], binding)

    def _interface(self, node: Node, qname: str) -> None:
        bases = self.summary["defs"][qname].setdefault("bases", [])
        for element in node.named_children:
            if element.type == "method_elem":
                name = self.text(element.child_by_field_name("name"))
                if name:
                    method = f"{qname}.{name}"
                    self._define(element, method, "method", name)
                    self._signature(element, method)
            elif element.type == "type_elem" and len(element.named_children) == 1:
                named = self.type_ref(element.named_children[0])
                if named:
                    bases.append(named)

    def _signature(self, node: Node, qname: str) -> None:
        """An interface method's scope: what it returns, for calls chained on it."""
        scope = self.scopes.setdefault(qname, new_scope("function", ""))
        self._returns(scope, node.child_by_field_name("result"), node.start_point[0] + 1)

    def on_alias(self, node: Node, scope: str) -> None:
        """``type A = B``: the name holds ``B`` itself (an alias is the same type)."""
        name = self.text(node.child_by_field_name("name"))
        if name:
            qname = f"{scope}.{name}" if scope else name
            self._define(node, qname, "type", name)
            line = node.start_point[0] + 1
            named = self.type_ref(node.child_by_field_name("type"))
            add_binding(self.scopes[scope], name, assigned(named, line) if named else unknown(line))

    def on_var(self, node: Node, scope: str) -> None:
        """``var a, b T = x, y`` and ``const``: typed names are instances of their type."""
        names = [n for n in node.children_by_field_name("name") if self.text(n) != "_"]
        named = self.type_ref(node.child_by_field_name("type"))
        values = node.child_by_field_name("value")
        self._bind(scope, names, values.named_children if values is not None else [], named)

    def on_short(self, node: Node, scope: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        names = [
            n for n in (left.named_children if left is not None else ()) if n.type == "identifier"
        ]
        self._bind(scope, names, right.named_children if right is not None else [], "")

    def _bind(self, scope: str, names: list[Node], values: list[Node], named: str) -> None:
        target = self.scopes[scope]
        for index, name_node in enumerate(names):
            name = self.text(name_node)
            if name == "_":
                continue
            line = name_node.start_point[0] + 1
            value = values[index] if len(values) == len(names) else None
            if value is not None and value.type == "func_literal":
                self._closure(value, scope, name)
                continue
            if named:
                binding: Binding = annotated(named, line)
            elif value is not None:
                binding = self.value(value, line)
            elif len(values) == 1 and values[0].type == "call_expression":
                call = self.ref(values[0])  # a, err := f(): f's results by position
                binding = assigned(f"{call}[{index}]", line) if call != UNKNOWN else unknown(line)
            elif len(values) == 1 and index == 0:  # v, ok := m[k] / x.(T)
                binding = self.value(values[0], line)
            else:
                binding = unknown(line)
            add_binding(target, name, binding)
            if scope == "" and name not in self.summary["defs"]:
                self._define(name_node, name, "variable", name)

    def _closure(self, node: Node, scope: str, name: str) -> None:
        qname = f"{scope}.{name}" if scope else name
        self._define(node, qname, "function", name)
        add_binding(self.scopes[scope], name, defined(qname, node.start_point[0] + 1))
        self.named_closures.add(node.start_byte)
        self._function(node, qname, scope)

    # -- other nodes ----------------------------------------------------------------------
    def on_range(self, node: Node, scope: str) -> None:
        """``for k, v := range xs``: ``v`` is an element (the value of ``xs``, whose type
        is its elements': see :meth:`type_ref`); a key or index is unknown."""
        if not any(c.type == ":=" for c in node.children):
            return
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        for index, name in enumerate(left.named_children if left is not None else ()):
            if name.type == "identifier" and self.text(name) != "_":
                line = name.start_point[0] + 1
                binding = self.value(right, line) if index == 1 and right is not None else None
                add_binding(self.scopes[scope], self.text(name), binding or unknown(line))

    def on_switch(self, node: Node, scope: str) -> None:
        alias = node.child_by_field_name("alias")
        for name in alias.named_children if alias is not None else ():
            if name.type == "identifier":
                add_binding(self.scopes[scope], self.text(name), unknown(name.start_point[0] + 1))

    def on_closure(self, node: Node, scope: str) -> None:
        """An anonymous function literal: its parameters are bound in the function it is
        written in (which its calls are attributed to)."""
        if node.start_byte not in self.named_closures:
            params = node.child_by_field_name("parameters")
            self._parameters(params, self.scopes[scope], node.start_point[0] + 1)

    def on_import(self, node: Node) -> None:
        path_node = node.child_by_field_name("path")
        path = self.text(path_node).strip('"`')
        if not path:
            return
        line = node.start_point[0] + 1
        alias = node.child_by_field_name("name")
        name = self.text(alias) if alias is not None else default_package_name(path)
        self.summary["imports"].append(Import("", path, 0, [], line))
        if name == ".":
            self.summary["estar"].append(path)
        elif name != "_":
            add_binding(self.scopes[""], name, ImportedModule("mod", path, line))
            self.aliases[name] = len(self.summary["imports"]) - 1


def parse_go(source: bytes) -> Summary:
    """Summarise one Go file. Never raises on bad syntax: ERROR nodes are counted."""
    return GoSummariser(source).run()


_MODULE_LINE: Final = re.compile(rb"^\s*module\s+\"?([^\s\"/]+[^\s\"]*)\"?", re.MULTILINE)


def parse_gomod(source: bytes) -> Summary:
    """A ``go.mod``: its module path, the prefix of the import paths of the packages in
    its folder's tree, under the module-scope name ``module``."""
    summary = new_summary("gomod")
    found = _MODULE_LINE.search(source)
    if found is not None:
        line = source[: found.start(1)].count(b"\n") + 1
        module = found.group(1).decode("utf-8", "replace")
        add_binding(summary["scopes"][""], MODULE_NAME, ImportedModule("mod", module, line))
    return summary
