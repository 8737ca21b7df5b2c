"""Rust source -> :mod:`~kgraph.codegraph.summary` with tree-sitter; ``Cargo.toml`` -> the
crate's name and library path.

Same shape as the other summarisers: one query, items first in document order (functions,
methods and closures bound to a name open function scopes; an inline ``mod`` a namespace
scope), then calls by byte offset (:mod:`~kgraph.codegraph.spans`). How Rust maps onto a
summary:

- A struct, enum or union is a ``class`` whose fields are the names of its scope; a trait
  an ``interface`` (its supertraits its bases) whose methods are ``Trait.m`` (those
  without a body marked ``required``). A method of ``impl T`` or ``impl Trait for T`` is
  ``T.m`` wherever the block is (its scope's parent is the module, as a Go method's);
  ``self`` is an instance of ``T``, and ``Self`` is ``T``. ``impl Trait for T`` in the
  file of ``T`` adds ``Trait`` to ``T``'s ``implements``; anywhere, it is kept in the
  summary's ``impls`` (an ``implements`` edge). A function is ``f``, a closure bound to a
  name ``f.c``; any other closure belongs to the function it is in.
- Paths are refs: ``a::b::c`` is ``a.b.c``, with ``self::`` as ``mod`` (``self`` is a
  method's receiver). ``use a::b::{C, d as e}`` binds ``C`` to ``a.b.C`` and ``e`` to
  ``a.b.d``; ``use a::b::*`` is a star import of ``a.b`` (:mod:`.rust_modules` reads them).
- Types bind values: parameters, ``let x: T``, struct literals ``T { .. }`` are instances of
  their type; a function returns its result type's. A wrapper (``Result<T, E>``,
  ``Option<T>``, ``Box<T>``, ``Vec<T>``, ``&T``, ``Rc``, ``Arc``...) is its content, ``dyn
  Trait``/``impl Trait`` and a parameter bounded by a trait are the trait; so ``x?``,
  ``x.unwrap()``, ``x.clone()``, ``x.iter()`` and an index are ``x``. Macros are no calls.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.langs.common import grammar, in_source_order, syntax_errors
from kgraph.codegraph.langs.rust_bindings import RustBindings
from kgraph.codegraph.langs.rust_modules import REQUIRED
from kgraph.codegraph.summary import (
    Summary,
    Unknown,
    add_binding,
    annotated,
    assigned,
    defined,
    new_scope,
    parameter,
    unknown,
)

_QUERY: Final = """
(mod_item) @mod
(use_declaration) @use
(function_item) @func
(function_signature_item) @func
(impl_item) @impl
(struct_item) @struct
(enum_item) @struct
(union_item) @struct
(trait_item) @trait
(type_item) @alias
(const_item) @const
(static_item) @const
(let_declaration) @let
(for_expression) @for
(let_condition) @iflet
(match_expression) @match
(closure_expression) @closure
(call_expression function: (_) @callee)
"""
_ITEMS: Final = (
    "mod",
    "use",
    "func",
    "impl",
    "struct",
    "trait",
    "alias",
    "const",
    "let",
    "for",
    "iflet",
    "match",
)


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    import tree_sitter_rust

    return grammar(tree_sitter_rust.language(), _QUERY)


class RustSummariser(RustBindings):
    """Builds one file's summary (one instance a parse): a handler for each captured node."""

    def run(self) -> Summary:
        parser, query, error_query = _language()
        tree = parser.parse(self.source)
        captures = QueryCursor(query).captures(tree.root_node)
        items = in_source_order(captures, _ITEMS)
        for _start, name, node in items:
            getattr(self, f"on_{name}")(node, self.spans.enclosing(node))
        for name, handler in (("closure", self.on_closure), ("callee", self.on_callee)):
            for node, scope in self.spans.placed(captures.get(name, [])):
                handler(node, scope)
        self.summary["errors"] = syntax_errors(tree, error_query)
        return self.summary

    # -- context --------------------------------------------------------------------------
    def on_func(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        owner = self._impl(node)
        line = node.start_point[0] + 1
        namespace = self._namespace(scope)
        if owner is not None:  # a method: T.m, its scope's parent the module (or inline mod)
            if owner.type == "trait_item":
                type_name = self.text(owner.child_by_field_name("name"))
            else:
                type_name = self.type_ref(owner.child_by_field_name("type"), scope, "")
            if not type_name or "." in type_name:
                return
            prefix = f"{namespace}." if namespace else ""
            qname, parent = f"{prefix}{type_name}.{name}", namespace
            self._define(node, qname, "method")
        else:
            qname, parent = (f"{scope}.{name}" if scope else name), scope
            self._define(node, qname, "function")
            add_binding(self.scopes[scope], name, defined(qname, line))
        self._function(node, qname, parent, owner)

    def _function(self, node: Node, qname: str, parent: str, owner: Node | None) -> None:
        body = node.child_by_field_name("body")
        self.spans.enter(node, qname, body.start_byte if body is not None else node.end_byte)
        scope = self.scopes.get(qname)
        if scope is None:
            scope = self.scopes[qname] = new_scope("function", parent)
            if body is None and node.type == "function_signature_item":
                scope["method"] = REQUIRED
        line = node.start_point[0] + 1
        self._bounds(node, qname)
        self_type = self._self_type(node, parent) if owner is not None else ""
        params = node.child_by_field_name("parameters")
        positions = scope.setdefault("params", [])
        for param in params.named_children if params is not None else ():
            if param.type == "self_parameter" and self_type:
                add_binding(scope, "self", annotated(self_type, line))
            elif param.type == "parameter":
                pattern = param.child_by_field_name("pattern")
                name = self.text(pattern) if pattern is not None else "_"
                if (
                    pattern is not None
                    and pattern.type == "identifier"
                    and self._callable(param.child_by_field_name("type"), qname)
                ):  # a function value: what callers pass (flow follows it where called)
                    add_binding(scope, name, parameter(len(positions), line))
                else:
                    self._pattern(pattern, scope, line, param, qname)
                positions.append(
                    name if pattern is not None and pattern.type == "identifier" else "_"
                )
        if "returns" not in scope:
            returned = node.child_by_field_name("return_type")
            binding = self.type_binding(returned, parent, qname, line, qname)
            if not isinstance(binding, Unknown):
                scope["returns"] = [binding]

    def _bounds(self, node: Node, qname: str) -> None:
        """``fn f<T: Trait>``/``where T: Trait``: a value of type ``T`` is a ``Trait``."""
        found: dict[str, str] = {}
        params = node.child_by_field_name("type_parameters")
        for param in params.named_children if params is not None else ():
            name = self.text(param.child_by_field_name("name"))
            bounds = param.child_by_field_name("bounds")
            first = (
                bounds.named_children[0] if bounds is not None and bounds.named_children else None
            )
            if name and first is not None and first.type == "function_type":
                self.callables.setdefault(qname, set()).add(name)
            elif name and first is not None:
                found[name] = self.type_ref(first, "", "")
        if found:
            self.bounds[qname] = found

    def _callable(self, node: Node | None, function: str) -> bool:
        """Whether a parameter's type is a function's: ``fn(..)``, ``impl Fn(..)``,
        ``&dyn Fn(..)``, a type parameter bounded by ``Fn``."""
        while node is not None:
            kind = node.type
            if kind == "function_type":
                return True
            if kind in ("reference_type", "pointer_type"):
                node = node.child_by_field_name("type")
            elif kind in ("abstract_type", "dynamic_type"):
                node = node.child_by_field_name("trait")
            elif kind == "type_identifier":
                return self.text(node) in self.callables.get(function, ())
            else:
                return False
        return False

    def on_impl(self, node: Node, scope: str) -> None:
        """``impl Trait for T``: an implements edge (and ``T``'s own, in its file)."""
        trait = node.child_by_field_name("trait")
        if trait is None:
            return
        type_name = self.type_ref(node.child_by_field_name("type"), scope, "")
        trait_name = self.type_ref(trait, scope, "")
        if not type_name or not trait_name:
            return
        self.summary.setdefault("impls", []).append(
            [type_name, trait_name, node.start_point[0] + 1]
        )
        info = self.summary["defs"].get(type_name)
        if info is not None and info["kind"] == "class":
            info.setdefault("implements", []).append(trait_name)

    def on_struct(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qname = f"{scope}.{name}" if scope else name
        self._define(node, qname, "class")
        add_binding(self.scopes[scope], name, defined(qname, node.start_point[0] + 1))
        fields = self.scopes.setdefault(qname, new_scope("class", scope))
        body = node.child_by_field_name("body")
        if body is not None and body.type == "enum_variant_list":  # Kind::A: an instance
            for variant in body.named_children:
                name_node = variant.child_by_field_name("name")
                if variant.type == "enum_variant" and name_node is not None:
                    line = variant.start_point[0] + 1
                    add_binding(fields, self.text(name_node), annotated(qname, line))
            return
        if body is None or body.type != "field_declaration_list":
            return
        for field in body.named_children:
            if field.type == "field_declaration":
                line = field.start_point[0] + 1
                declared = field.child_by_field_name("type")
                binding = self.type_binding(declared, scope, "", line, scope)  # read there
                add_binding(fields, self.text(field.child_by_field_name("name")), binding)

    def on_trait(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qname = f"{scope}.{name}" if scope else name
        self._define(node, qname, "interface")
        add_binding(self.scopes[scope], name, defined(qname, node.start_point[0] + 1))
        bounds = node.child_by_field_name("bounds")
        supertraits = [
            self.type_ref(b, scope, "") for b in (bounds.named_children if bounds else ())
        ]
        self.summary["defs"][qname]["bases"] = [s for s in supertraits if s]

    def on_alias(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if name:
            qname = f"{scope}.{name}" if scope else name
            self._define(node, qname, "type")
            line = node.start_point[0] + 1
            named = self.type_ref(node.child_by_field_name("type"), scope, "")
            add_binding(self.scopes[scope], name, assigned(named, line) if named else unknown(line))

    def on_const(self, node: Node, scope: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name or self._impl(node) is not None:
            return
        line = node.start_point[0] + 1
        named = self.type_ref(node.child_by_field_name("type"), scope, "")
        binding = (
            annotated(named, line)
            if named
            else self.value(node.child_by_field_name("value"), scope, line)
        )
        add_binding(self.scopes[scope], name, binding)
        if self.scopes[scope]["kind"] == "module" or self.scopes[scope].get("method") == "mod":
            self._define(node, f"{scope}.{name}" if scope else name, "variable")


def parse_rust(source: bytes) -> Summary:
    """Summarise one Rust file. Never raises on bad syntax: ERROR nodes are counted."""
    return RustSummariser(source).run()
