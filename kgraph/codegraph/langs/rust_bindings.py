"""The names a Rust function binds in its body, for the summariser (:mod:`.rust_parse`):
``let`` (a closure bound to a name is a function of its own, ``f.c``), ``for`` (an
element of what is iterated), ``if let`` and ``match`` arms (``Some(x)`` and ``Ok(x)``
unwrap: ``x`` is what the value holds), closures' parameters, and the patterns of all
of these and of a function's parameters (a name's declared type, else unknown).

A base of :class:`~.rust_parse.RustSummariser`, apart from its items (functions, types,
traits, impls): these bind values, whose types are what a call through them reaches.
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from kgraph.codegraph.langs.rust_uses import RustModuleItems
from kgraph.codegraph.summary import (
    UNKNOWN,
    Scope,
    add_binding,
    assigned,
    defined,
    new_scope,
    unknown,
)

_UNWRAPPING: Final = frozenset({"Some", "Ok"})  # a pattern whose one name is the content


class RustBindings(RustModuleItems):
    """The handlers of the bindings in function bodies (a base of
    :class:`~.rust_parse.RustSummariser`)."""

    def _pattern(
        self, pattern: Node | None, scope: Scope, line: int, typed: Node | None, function: str
    ) -> None:
        """Bind the names of a parameter's or a ``let``'s pattern: its type, else unknown."""
        if pattern is None:
            return
        if pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[-1]
        if pattern.type == "identifier":
            declared = typed.child_by_field_name("type") if typed is not None else None
            holder = function if function in self.scopes else ""
            binding = self.type_binding(declared, holder, function, line, holder)
            add_binding(scope, self.text(pattern), binding)
            return
        variant = pattern.child_by_field_name("type")  # Some(x), Kind::A { .. }: no name
        for inner in pattern.named_children:  # tuples, structs: names of unknown types
            if inner == variant:
                continue
            if inner.type == "identifier":
                add_binding(scope, self.text(inner), unknown(line))
            elif inner.named_children:
                self._pattern(inner, scope, line, None, function)

    def on_let(self, node: Node, scope: str) -> None:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        line = node.start_point[0] + 1
        if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[-1]
        if pattern is None:
            return
        if (
            pattern.type == "identifier"
            and value is not None
            and value.type == "closure_expression"
        ):
            name = self.text(pattern)
            qname = f"{scope}.{name}" if scope else name
            self._define(value, qname, "function")
            add_binding(self.scopes[scope], name, defined(qname, line))
            body = value.child_by_field_name("body")
            self.spans.enter(value, qname, body.start_byte if body is not None else value.end_byte)
            closure = self.scopes.setdefault(qname, new_scope("function", scope))
            self.named_closures.add(value.start_byte)
            self._closure_params(value, closure, line)
            return
        if pattern.type == "identifier" and node.child_by_field_name("type") is None:
            add_binding(self.scopes[scope], self.text(pattern), self.value(value, scope, line))
            return
        self._pattern(pattern, self.scopes[scope], line, node, scope)

    def on_for(self, node: Node, scope: str) -> None:
        """``for x in xs``: ``x`` is an element of ``xs`` (``xs.iter()`` is ``xs``)."""
        pattern = node.child_by_field_name("pattern")
        line = node.start_point[0] + 1
        if pattern is not None and pattern.type == "identifier":
            iterated = self.ref(node.child_by_field_name("value"), scope)
            binding = assigned(iterated + "[*]", line) if iterated != UNKNOWN else unknown(line)
            add_binding(self.scopes[scope], self.text(pattern), binding)
        else:
            self._pattern(pattern, self.scopes[scope], line, None, scope)

    def on_iflet(self, node: Node, scope: str) -> None:
        """``if let Some(x) = v``: ``x`` is what ``v`` holds (a wrapper is its content)."""
        self._unwrap(node.child_by_field_name("pattern"), node.child_by_field_name("value"), scope)

    def on_match(self, node: Node, scope: str) -> None:
        """``match v { Some(x) => .. }``: likewise for each arm's pattern."""
        value = node.child_by_field_name("value")
        body = node.child_by_field_name("body")
        for arm in body.named_children if body is not None else ():
            pattern = arm.child_by_field_name("pattern")
            if pattern is not None and pattern.named_children:
                self._unwrap(pattern.named_children[0], value, scope)

    def _unwrap(self, pattern: Node | None, value: Node | None, scope: str) -> None:
        if pattern is None:
            return
        line = pattern.start_point[0] + 1
        kind = pattern.child_by_field_name("type")
        names = [c for c in pattern.named_children if c.type == "identifier" and c != kind]
        if (
            pattern.type == "tuple_struct_pattern"
            and self.text(kind) in _UNWRAPPING
            and len(names) == 1
            and value is not None
        ):
            add_binding(self.scopes[scope], self.text(names[0]), self.value(value, scope, line))
        else:
            self._pattern(pattern, self.scopes[scope], line, None, scope)

    def on_closure(self, node: Node, scope: str) -> None:
        """An anonymous closure: its parameters are bound in the function it is written in
        (which its calls are attributed to); a named one has its own scope already."""
        if node.start_byte not in self.named_closures:
            self._closure_params(node, self.scopes[scope], node.start_point[0] + 1)

    def _closure_params(self, node: Node, scope: Scope, line: int) -> None:
        params = node.child_by_field_name("parameters")
        for param in params.named_children if params is not None else ():
            if param.type == "parameter":
                self._pattern(param.child_by_field_name("pattern"), scope, line, param, "")
            elif param.type == "identifier":
                add_binding(scope, self.text(param), unknown(line))
