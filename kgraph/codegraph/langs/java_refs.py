"""Java expressions and types -> refs (:mod:`kgraph.codegraph.refs`), for the summariser
(:mod:`.java_parse`), with Java's scoping resolved where the declarations are known: a
name a method's scope does not declare is a member (``this.x``; an outer class's, from an
inner class, ``Outer.x``), a type nested in an enclosing class is named from the file, a
capitalised name is a type (unless a class declares a constant of that name); ``new C()``
is a call of ``C``, a cast ``C(!)``, an array access an element.
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Binding,
    Scope,
    annotated,
    assigned,
    new_summary,
    unknown,
)

_LITERALS: Final = {
    "string_literal": "<str>",
    "text_block": "<str>",
    "character_literal": "<str>",
    "decimal_integer_literal": "<int>",
    "hex_integer_literal": "<int>",
    "octal_integer_literal": "<int>",
    "binary_integer_literal": "<int>",
    "decimal_floating_point_literal": "<float>",
    "hex_floating_point_literal": "<float>",
}
TYPE_NODES: Final = ("type_identifier", "scoped_type_identifier", "generic_type", "array_type")


class JavaExpressions:
    """A Java file's summary in the making, and its expressions as refs (the base of
    :class:`~.java_parse.JavaSummariser`)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.scopes: dict[str, Scope] = {}
        self.summary = new_summary("java", self.scopes)
        self.spans = Spans()
        self.static_imports: set[str] = set()
        self.nested: dict[str, set[str]] = {}  # class qname -> the types declared in it

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _class_of(self, scope: str) -> str | None:
        """The class whose member a name of ``scope`` may be (``scope`` itself for a class)."""
        current: str | None = scope
        while current:
            data = self.scopes[current]
            if data["kind"] == "class":
                return current
            current = data["parent"]
        return None

    def _local(self, scope: str, name: str) -> bool:
        """Whether a method scope (or one it is nested in) declares ``name``."""
        current: str | None = scope
        while current:
            data = self.scopes[current]
            if data["kind"] == "class":
                return False
            if name in data["names"]:
                return True
            current = data["parent"]
        return False

    def _nested_type(self, scope: str, name: str) -> str | None:
        """``Outer.Name`` for a type ``Name`` declared in a class enclosing ``scope``."""
        current: str | None = self._class_of(scope)
        while current:
            if name in self.nested.get(current, ()):
                return f"{current}.{name}"
            current = self._class_of(self.scopes[current]["parent"] or "")
        return None

    # -- refs and types -------------------------------------------------------------------
    def _member(self, scope: str, name: str, declared: bool = False) -> str | None:
        """How a member ``name`` used in ``scope`` is reached: ``this.name`` when the
        innermost class declares it (or, unless ``declared``, none of the file's classes
        does: it may be inherited), ``Outer.name`` when an enclosing class does (an inner
        class reaches its outer instance's members); None outside any class."""
        innermost = current = self._class_of(scope)
        if innermost is None:
            return None
        while current:
            if f"{current}.{name}" in self.summary["defs"] or name in self.scopes[current]["names"]:
                return "this." + name if current == innermost else f"{current}.{name}"
            current = self._class_of(self.scopes[current]["parent"] or "")
        return None if declared else "this." + name

    def name_ref(self, name: str, scope: str) -> str:
        """A simple name used in ``scope`` (see the module docstring)."""
        if self._local(scope, name):
            return name
        nested = self._nested_type(scope, name)
        if nested is not None:
            return nested
        if name in self.static_imports:
            return name
        if name[:1].isupper():  # a type, unless a class declares it (a constant)
            return self._member(scope, name, declared=True) or name
        return self._member(scope, name) or name

    def ref(self, node: Node | None, scope: str) -> str:
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind == "identifier":
            return self.name_ref(self.text(node), scope)
        if kind in ("this", "super"):
            return kind
        if kind == "field_access":
            head = self.ref(node.child_by_field_name("object"), scope)
            field = self.text(node.child_by_field_name("field"))
            return f"{head}.{field}" if head != UNKNOWN else UNKNOWN
        if kind == "method_invocation":
            callee = self.callee(node, scope)
            return callee + "()" if callee != UNKNOWN else UNKNOWN
        if kind == "object_creation_expression":
            named = self.type_ref(node.child_by_field_name("type"), scope)
            return named + "()" if named else UNKNOWN
        if kind == "cast_expression":
            named = self.type_ref(node.child_by_field_name("type"), scope)
            return named + "(!)" if named else UNKNOWN
        if kind == "parenthesized_expression":
            return self.ref(node.named_children[0], scope) if node.named_children else UNKNOWN
        if kind == "array_access":  # an element: an array is its elements' type
            return self.ref(node.child_by_field_name("array"), scope)
        return _LITERALS.get(kind, UNKNOWN)

    def callee(self, node: Node, scope: str) -> str:
        """A method invocation's callee: ``obj.m``, ``this.m`` for an unqualified ``m``."""
        name = self.text(node.child_by_field_name("name"))
        target = node.child_by_field_name("object")
        if target is None:
            if name in self.static_imports:
                return name
            return self._member(scope, name) or name
        head = self.ref(target, scope)
        return f"{head}.{name}" if head != UNKNOWN else UNKNOWN

    def type_ref(self, node: Node | None, scope: str) -> str:
        """A declared type as a ref: ``C``, ``a.b.C``, ``Outer.Inner``; type arguments
        dropped, an array its elements; "" for primitive types and ``var``."""
        while node is not None:
            kind = node.type
            if kind == "type_identifier":
                name = self.text(node)
                if name == "var":
                    return ""
                return self._nested_type(scope, name) or name
            if kind == "scoped_type_identifier":
                return "".join(self.text(node).split())
            if kind == "generic_type":
                node = node.named_children[0] if node.named_children else None
            elif kind == "array_type":
                node = node.child_by_field_name("element")
            else:
                return ""
        return ""

    def value(self, node: Node | None, scope: str, line: int) -> Binding:
        """What ``var x = node`` binds ``x`` to."""
        if node is None:
            return unknown(line)
        if node.type in ("object_creation_expression", "cast_expression"):
            named = self.type_ref(node.child_by_field_name("type"), scope)
            return annotated(named, line) if named else unknown(line)
        ref = self.ref(node, scope)
        return assigned(ref, line) if ref != UNKNOWN else unknown(line)

    # -- declarations ---------------------------------------------------------------------
