"""Rust expressions, paths and types -> refs (:mod:`kgraph.codegraph.refs`), for the
summariser (:mod:`.rust_parse`): ``a::b::c`` is ``a.b.c`` (``self::`` as ``mod``, ``Self``
as the impl's type), ``T { .. }`` is ``T(!)``, an instance of ``T``. A wrapper
(``Result``, ``Option``, ``Box``, ``&``, ``Rc``...) is its content, so ``x?``,
``x.unwrap()`` and ``x.clone()`` are ``x``; a collection is a container of its elements
(iterated, indexed, ``get``), not an element: a ``Vec``'s own methods are not its
elements'. A call's arguments are kept (``(#N)``) when one of them may be a function.
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

from kgraph.codegraph.langs.common import names_function
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Arguments,
    Binding,
    Container,
    Scope,
    add_call,
    annotated,
    assigned,
    new_summary,
    unknown,
)

# Wrappers whose value is their content, by the position of its type argument.
_WRAPPERS: Final = {
    "Result": 0,
    "Option": 0,
    "Box": 0,
    "Rc": 0,
    "Arc": 0,
    "RefCell": 0,
    "Cell": 0,
    "Mutex": 0,
    "RwLock": 0,
    "Vec": 0,
    "VecDeque": 0,
    "HashSet": 0,
    "BTreeSet": 0,
    "Cow": 0,
    "Pin": 0,
}
# Collections: a value of one is a container of its elements (iterated, indexed, ``get``),
# not an element: a ``Vec``'s own methods (``push``, ``len``) are not its elements'.
_COLLECTIONS: Final = {
    "Vec": ("list", 0),
    "VecDeque": ("list", 0),
    "LinkedList": ("list", 0),
    "BinaryHeap": ("list", 0),
    "HashSet": ("set", 0),
    "BTreeSet": ("set", 0),
    "HashMap": ("dict", -1),
    "BTreeMap": ("dict", -1),
    "IndexMap": ("dict", -1),
}
# Methods whose result is their receiver's content, as far as values go (the std's, on
# wrappers and collections); the first ones are Option's and Result's alone: no call.
_UNWRAPS: Final = frozenset({"unwrap", "expect", "unwrap_or_default", "as_deref"})
_TRANSPARENT: Final = _UNWRAPS | frozenset(
    {
        "clone",
        "as_ref",
        "as_mut",
        "borrow",
        "borrow_mut",
        "iter",
        "iter_mut",
        "into_iter",
        "to_owned",
    }
)
_LITERALS: Final = {
    "string_literal": "<str>",
    "raw_string_literal": "<str>",
    "integer_literal": "<int>",
    "float_literal": "<float>",
    "char_literal": "<str>",
}
_HEADS: Final = {"self": "mod", "crate": "crate", "super": "super"}
_GENERICS: Final = re.compile(r"<[^<>]*(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>[^<>]*)*>|\bmut\b|\bdyn\b")


class RustExpressions:
    """A Rust file's summary in the making, and its expressions as refs (the base of
    :class:`~.rust_parse.RustSummariser`)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.scopes: dict[str, Scope] = {}
        self.summary = new_summary("rust", self.scopes)
        self.spans = Spans()
        self.bounds: dict[str, dict[str, str]] = {}  # function -> type parameter -> trait
        self.named_closures: set[int] = set()  # start bytes of closures bound to a name
        self.callables: dict[str, set[str]] = {}  # function -> type parameters bounded by Fn

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _impl(self, node: Node) -> Node | None:
        """The ``impl`` or ``trait`` block an item is declared in (None: a free item)."""
        parent = node.parent
        if parent is not None and parent.type == "declaration_list":
            owner = parent.parent
            if owner is not None and owner.type in ("impl_item", "trait_item"):
                return owner
        return None

    def _self_type(self, node: Node, scope: str) -> str:
        """``Self`` where ``node`` is: the type of the impl or trait block holding it."""
        current: Node | None = node
        while current is not None:
            if current.type == "impl_item":
                return self._plain_type(current.child_by_field_name("type"))
            if current.type == "trait_item":
                return self.text(current.child_by_field_name("name"))
            current = current.parent
        return ""

    def _plain_type(self, node: Node | None) -> str:
        """An impl block's type as written, without type arguments or references
        (``impl<T> a::Foo<T>`` is ``a.Foo``)."""
        text = _GENERICS.sub("", self.text(node)).lstrip("&").strip()
        path = ".".join(p.strip() for p in text.split("::") if p.strip())
        head, dot, rest = path.partition(".")
        return _HEADS.get(head, head) + dot + rest if path.replace(".", "_").isidentifier() else ""

    def _namespace(self, scope: str) -> str:
        """The inline module a scope is in ("" for the file's own)."""
        current: str | None = scope
        while current:
            data = self.scopes[current]
            if data.get("method") == "mod":
                return current
            current = data["parent"]
        return ""

    def _define(self, node: Node, qname: str, kind: str) -> None:
        """Record the definition of ``qname`` (exported when ``pub``), once: for items and
        for the closures bound to a name alike (:mod:`.rust_bindings`)."""
        if qname not in self.summary["defs"]:
            public = any(c.type == "visibility_modifier" for c in node.children)
            self.summary["defs"][qname] = {
                "kind": kind,
                "line": node.start_point[0] + 1,
                "end": node.end_point[0] + 1,
                "exported": public,
            }

    # -- refs and types -------------------------------------------------------------------
    def path(self, node: Node, self_type: str) -> str:
        """``a::b::c`` as ``a.b.c`` (``self::`` as ``mod``, ``Self`` as the impl's type)."""
        parts = [p for p in re.split(r"\s*::\s*", self.text(node)) if p]
        parts = [p.split("<", 1)[0] for p in parts]  # turbofish and type arguments
        if not parts or not all(p.replace("_", "a").isalnum() for p in parts):
            return UNKNOWN
        head = parts[0]
        parts[0] = _HEADS.get(head, self_type if head == "Self" and self_type else head)
        return ".".join(parts)

    def ref(self, node: Node | None, scope: str) -> str:
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind in ("identifier", "self"):
            return self.text(node)
        if kind in ("scoped_identifier", "scoped_type_identifier"):
            return self.path(node, self._self_type(node, scope))
        if kind == "field_expression":
            head = self.ref(node.child_by_field_name("value"), scope)
            field = node.child_by_field_name("field")
            if head == UNKNOWN or field is None or field.type != "field_identifier":
                return UNKNOWN
            return f"{head}.{self.text(field)}"
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "field_expression":
                method = self.text(function.child_by_field_name("field"))
                if method in _TRANSPARENT:
                    return self.ref(function.child_by_field_name("value"), scope)
            callee = self.ref(function, scope)
            return callee + "()" if callee != UNKNOWN else UNKNOWN
        if kind == "generic_function":
            return self.ref(node.child_by_field_name("function"), scope)
        if kind == "struct_expression":
            named = self.type_ref(node.child_by_field_name("name"), scope, "")
            return named + "(!)" if named else UNKNOWN
        if kind in ("try_expression", "await_expression", "parenthesized_expression"):
            inner = node.named_children
            return self.ref(inner[0], scope) if inner else UNKNOWN
        if kind in ("reference_expression", "unary_expression"):
            value = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None
            )
            return self.ref(value, scope)
        if kind == "index_expression":  # an element of a container
            held = self.ref(node.named_children[0] if node.named_children else None, scope)
            return held + "[]" if held != UNKNOWN else UNKNOWN
        return _LITERALS.get(kind, UNKNOWN)

    def type_ref(self, node: Node | None, scope: str, function: str) -> str:
        """A type as a ref (see the module docstring); "" for primitives and tuples."""
        while node is not None:
            kind = node.type
            if kind == "type_identifier":
                name = self.text(node)
                if name == "Self":
                    return self._self_type(node, scope)
                return self.bounds.get(function, {}).get(name, name)
            if kind == "scoped_type_identifier":
                return self.path(node, self._self_type(node, scope))
            if kind == "generic_type":
                base = self.type_ref(node.child_by_field_name("type"), scope, function)
                position = _WRAPPERS.get(base.rpartition(".")[2])
                arguments = node.child_by_field_name("type_arguments")
                if position is None or arguments is None or not arguments.named_children:
                    return base
                node = arguments.named_children[position]
            elif kind in ("reference_type", "pointer_type"):
                node = node.child_by_field_name("type")
            elif kind in ("dynamic_type", "abstract_type"):
                node = node.child_by_field_name("trait")
            elif kind == "bounded_type":
                node = node.named_children[0] if node.named_children else None
            else:
                return ""
        return ""

    def type_binding(
        self, node: Node | None, scope: str, function: str, line: int, holder: str
    ) -> Binding:
        """What a value of a declared type is: an instance of it; of a collection, a
        container of its elements (kept in the scope ``holder``, where the binding is
        read)."""
        held = self._elements(node, scope, function)
        if held is None:
            named = self.type_ref(node, scope, function)
            return annotated(named, line) if named else unknown(line)
        kind, element = held
        if not element:
            return unknown(line)
        containers = self.scopes[holder].setdefault("containers", [])
        containers.append(Container(kind, [None], [element + "(!)"], line))
        return assigned(f"<#{len(containers) - 1}>", line)

    def _elements(self, node: Node | None, scope: str, function: str) -> tuple[str, str] | None:
        """(container kind, element type) for a collection type (through references and
        wrappers); None for any other."""
        while node is not None:
            kind = node.type
            if kind in ("reference_type", "pointer_type"):
                node = node.child_by_field_name("type")
            elif kind == "array_type":
                return "list", self.type_ref(node.child_by_field_name("element"), scope, function)
            elif kind == "generic_type":
                base = self.text(node.child_by_field_name("type")).rpartition("::")[2]
                arguments = node.child_by_field_name("type_arguments")
                items = [c for c in arguments.named_children] if arguments is not None else []
                if base in _COLLECTIONS and items:
                    container, position = _COLLECTIONS[base]
                    return container, self.type_ref(items[position], scope, function)
                if base in _WRAPPERS and items:
                    node = items[_WRAPPERS[base]]
                else:
                    return None
            else:
                return None
        return None

    def value(self, node: Node | None, scope: str, line: int) -> Binding:
        if node is None:
            return unknown(line)
        if node.type == "struct_expression":
            named = self.type_ref(node.child_by_field_name("name"), scope, "")
            return annotated(named, line) if named else unknown(line)
        ref = self.ref(node, scope)
        return assigned(ref, line) if ref != UNKNOWN else unknown(line)

    # -- items ----------------------------------------------------------------------------
    def on_callee(self, node: Node, scope: str) -> None:
        if node.type == "field_expression":
            field = self.text(node.child_by_field_name("field"))
            if field in _UNWRAPS:
                return
        ref = self.ref(node, scope)
        if ref != UNKNOWN:
            arguments = node.next_named_sibling
            op = self._arguments(arguments, scope) if arguments is not None else "()"
            add_call(self.summary, scope, ref + op, node.start_point[0] + 1)

    def _arguments(self, arguments: Node, scope: str) -> str:
        """``(#N)`` with the call's arguments when one of them may be a function (a name
        no scope binds to a value of a known type, a path), else ``()``."""
        if arguments.type != "arguments" or not arguments.named_child_count:
            return "()"
        positional: list[str] = []
        kept = False
        for argument in arguments.named_children:
            kind = argument.type
            if kind in ("line_comment", "block_comment"):
                continue
            function_like = kind == "scoped_identifier" or (
                kind == "identifier" and names_function(self.scopes, scope, self.text(argument))
            )
            ref = self.ref(argument, scope) if function_like else UNKNOWN
            positional.append(ref)
            kept = kept or ref != UNKNOWN
        if not kept:
            return "()"
        target = self.scopes[scope].setdefault("args", [])
        target.append(Arguments(positional, {}, False))
        return f"(#{len(target) - 1})"
