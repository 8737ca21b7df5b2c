"""Python expressions -> refs (:mod:`kgraph.codegraph.refs`), for the summariser.

A call's arguments, and a literal's items, are kept (``(#N)``, ``<#N>``) only when one of
them may be a function: a lambda, a def or class, an imported name, a parameter passed on,
a method (``self.m``), or a container or call holding one. The rest of a program's
arguments (locals, literals) cannot change which function a call reaches, and keeping
them would grow every summary and split the resolver's caches by call site.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from tree_sitter import Node

from kgraph.codegraph.python_nodes import DOTTED, node_text
from kgraph.codegraph.refs import key_op
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Arguments,
    Assigned,
    Binding,
    Container,
    Defined,
    ImportedModule,
    ImportedName,
    Parameter,
    Scope,
)

if TYPE_CHECKING:
    from kgraph.codegraph.summary import Definition

_BUILTINS = frozenset(dir(builtins))
_LITERALS = {
    "string": "<str>",
    "concatenated_string": "<str>",
    "list": "<list>",
    "list_comprehension": "<list>",
    "dictionary": "<dict>",
    "dictionary_comprehension": "<dict>",
    "set": "<set>",
    "set_comprehension": "<set>",
    "tuple": "<tuple>",
    "integer": "<int>",
    "float": "<float>",
    "true": "<bool>",
    "false": "<bool>",
}
_SEQUENCES = {"list": "list", "tuple": "tuple", "set": "set", "expression_list": "tuple"}
_COMPREHENSIONS = {
    "list_comprehension": "list",
    "set_comprehension": "set",
    "generator_expression": "list",
    "dictionary_comprehension": "dict",
}
# Builtins whose argument is worth keeping whatever it is: what they return is made of it.
_ALWAYS_KEPT = frozenset({"iter", "next", "enumerate"})
# Builtins that never call what they are given, nor give it back: no argument is kept.
_INERT = frozenset(
    {"isinstance", "issubclass", "hasattr", "getattr", "setattr", "delattr", "len", "repr"}
    | {"str", "int", "float", "bool", "type", "id", "print", "hash", "format", "vars", "dir"}
    | {"callable", "super", "sum", "any", "all", "abs", "round", "ord", "chr", "bytes"}
)
# Expressions that are never a function.
_NEVER = frozenset(
    {"string", "concatenated_string", "integer", "float", "true", "false", "none"}
    | {"binary_operator", "comparison_operator", "boolean_operator", "not_operator"}
    | {"unary_operator", "ellipsis"}
)


def _span(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


class RefBuilder:
    """Refs of one file's expressions; records arguments and literals into the scopes."""

    def __init__(self, scopes: dict[str, Scope], defs: dict[str, Definition]) -> None:
        self.scopes = scopes
        self.defs = defs
        self.lambdas: dict[tuple[int, int], str] = {}  # lambda node -> "<lambdaN>"
        self._calls: dict[tuple[int, int], str] = {}  # call node -> its call operation
        self._literals: dict[tuple[int, int], str] = {}  # literal node -> its ref
        self._methods: set[str] | None = None
        # Whether a name may hold a function, per (scope, text): kept once ``frozen`` (no
        # more bindings are added: the call sites are read last).
        self.memo: dict[tuple[str, str], bool] = {}
        self.frozen = False

    # -- refs -----------------------------------------------------------------------------
    def ref(self, node: Node | None, scope: str) -> str:
        """The ref of an expression written in ``scope`` (``?`` when unknowable)."""
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind == "identifier":
            return node_text(node)
        if kind == "attribute":
            text = node_text(node)
            if DOTTED.fullmatch(text):  # the common case, without walking the chain
                return text
            base = self.ref(node.child_by_field_name("object"), scope)
            if base == UNKNOWN:
                return UNKNOWN
            return f"{base}.{node_text(node.child_by_field_name('attribute'))}"
        if kind == "call":
            function = node.child_by_field_name("function")
            callee = self.ref(function, scope)
            if callee == UNKNOWN:
                return UNKNOWN
            if callee.endswith((".get", ".pop", ".setdefault")):
                lookup = self._keyed_lookup(function, node, scope)
                if lookup is not None:
                    return lookup
            return callee + self.call_op(node, scope, callee)
        if kind in ("parenthesized_expression", "await"):
            inner = node.named_children
            return self.ref(inner[0], scope) if inner else UNKNOWN
        if kind == "subscript":
            base = self.ref(node.child_by_field_name("value"), scope)
            if base == UNKNOWN:
                return UNKNOWN
            return base + _subscript_op(node.child_by_field_name("subscript"))
        if kind == "lambda":
            name = self.lambdas.get(_span(node))
            return f"@{name}" if name else UNKNOWN
        if kind in _SEQUENCES or kind in _COMPREHENSIONS or kind == "dictionary":
            return self.literal(node, scope)
        return _LITERALS.get(kind, UNKNOWN)

    def _keyed_lookup(self, function: Node | None, call: Node, scope: str) -> str | None:
        """``d.get("k")`` on a name holding a literal of this file: the item ``d['k']``."""
        if function is None or function.type != "attribute":
            return None
        receiver = function.child_by_field_name("object")
        method = node_text(function.child_by_field_name("attribute"))
        if method not in ("get", "pop", "setdefault") or receiver is None:
            return None
        if receiver.type != "identifier":
            return None
        found = self.bindings_of(node_text(receiver), scope)
        if found is None or not all(
            isinstance(b, Assigned) and b.ref.startswith("<#") for b in found[1]
        ):
            return None
        arguments = call.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments and arguments.named_children else None
        key = constant(first)
        return node_text(receiver) + key_op(key) if key is not None else None

    def call_op(self, node: Node, scope: str, callee: str) -> str:
        """``(#N)`` when the call's arguments are kept (same node, same N), else ``()``.
        Positions are kept with ``?`` for what cannot be followed, ``*`` where an unpacked
        ``*args`` makes the rest unknown."""
        span = (node.start_byte, node.end_byte)
        found = self._calls.get(span)
        if found is not None:
            return found
        arguments = node.child_by_field_name("arguments")
        if (
            arguments is None
            or arguments.named_child_count == 0
            or arguments.type != "argument_list"
            or (callee in _INERT and self.bindings_of(callee, scope) is None)
        ):
            self._calls[span] = "()"
            return "()"
        always = callee in _ALWAYS_KEPT
        positional: list[str] = []
        keywords: dict[str, str] = {}
        kept = False
        may_be_function = self.may_be_function
        for child in arguments.named_children:
            kind = child.type
            if kind in _NEVER:  # literals: the common case
                positional.append(UNKNOWN)
            elif kind == "comment":
                continue
            elif kind == "keyword_argument":
                value = child.child_by_field_name("value")
                if value is not None and value.type not in _NEVER and may_be_function(value, scope):
                    name = node_text(child.child_by_field_name("name"))
                    keywords[name] = self.ref(value, scope)
                    kept = True
            elif kind == "list_splat":
                positional.append("*")
                break  # positions unknown from here on
            elif kind == "dictionary_splat":
                keywords["**"] = UNKNOWN
            elif always or may_be_function(child, scope):
                ref = self.ref(child, scope)
                positional.append(ref)
                kept = kept or ref != UNKNOWN
            else:
                positional.append(UNKNOWN)
        op = "()"
        if kept:
            op = self.add_arguments(scope, Arguments(positional, keywords, False))
        self._calls[span] = op
        return op

    def add_arguments(self, scope: str, arguments: Arguments) -> str:
        target = self.scopes[scope].setdefault("args", [])
        target.append(arguments)
        return f"(#{len(target) - 1})"

    def literal(self, node: Node, scope: str) -> str:
        """``<#N>`` for a literal or comprehension holding a possible function, else its
        builtin type (``<list>``); a generator expression holding none is ``?``."""
        span = _span(node)
        found = self._literals.get(span)
        if found is not None:
            return found
        kind = node.type
        keys: list[str | int | None] = []
        refs: list[str] = []
        if kind in _COMPREHENSIONS:
            body = node.child_by_field_name("body")
            if body is not None and body.type == "pair":
                body = body.child_by_field_name("value")
            if self.may_be_function(body, scope):
                keys, refs = [None], [self.ref(body, scope)]
        elif kind == "dictionary":
            for pair in node.named_children:
                if pair.type != "pair":
                    continue
                value = pair.child_by_field_name("value")
                if self.may_be_function(value, scope):
                    keys.append(constant(pair.child_by_field_name("key")))
                    refs.append(self.ref(value, scope))
        else:
            exact = True
            for index, item in enumerate(c for c in node.named_children if c.type != "comment"):
                if item.type == "list_splat":
                    exact = False
                    inner = item.named_children[0] if item.named_children else None
                    if self.may_be_function(inner, scope):
                        keys.append(None)
                        refs.append(self.ref(inner, scope) + "[*]")
                elif self.may_be_function(item, scope):
                    keys.append(index if exact else None)
                    refs.append(self.ref(item, scope))
        if refs or (kind in ("list", "dictionary", "set") and not node.named_children):
            target = self.scopes[scope].setdefault("containers", [])
            kind_name = _COMPREHENSIONS.get(kind) or _SEQUENCES.get(kind, "dict")
            target.append(Container(kind_name, keys, refs, node.start_point[0] + 1))
            ref = f"<#{len(target) - 1}>"
        else:
            ref = _LITERALS.get(kind, UNKNOWN)
        self._literals[span] = ref
        return ref

    def kind_of(self, qname: str) -> str | None:
        info = self.defs.get(qname)
        return info["kind"] if info is not None else None

    # -- what may hold a function ---------------------------------------------------------
    def may_be_function(self, node: Node | None, scope: str) -> bool:
        if node is None:
            return False
        kind = node.type
        if kind in _NEVER:
            return False
        if kind == "lambda":
            return True
        if kind == "identifier" or kind == "attribute":
            text = node_text(node)
            key = (scope, text)
            found = self.memo.get(key) if self.frozen else None
            if found is None:
                if kind == "identifier":
                    found = self._name_may_be_function(text, scope, 2)
                else:
                    head, _, rest = text.partition(".")
                    found = (
                        head.isidentifier()
                        and DOTTED.fullmatch(text) is not None
                        and self._attribute_may_be_function(head, rest.split(".", 1)[0], scope)
                    )
                if self.frozen:
                    self.memo[key] = found
            return found
        if kind == "call":
            return "(#" in self.ref(node, scope).rsplit(".", 1)[-1]
        if kind == "subscript":
            return self.may_be_function(node.child_by_field_name("value"), scope)
        if kind in ("parenthesized_expression", "await"):
            return bool(node.named_children) and self.may_be_function(node.named_children[0], scope)
        if kind in _SEQUENCES or kind in _COMPREHENSIONS or kind == "dictionary":
            ref = self.literal(node, scope)
            if not ref.startswith("<#"):
                return False
            return bool(self.scopes[scope]["containers"][int(ref[2:-1])].refs)
        return False

    def bindings_of(self, name: str, scope: str) -> tuple[str, list[Binding]] | None:
        """(scope, bindings) of ``name`` by LEGB from ``scope`` (class bodies skipped from
        nested scopes), as far as the file has been read."""
        current, first = scope, True
        while True:
            data = self.scopes.get(current)
            if data is None:
                return None
            if first or data["kind"] != "class":
                found = data["names"].get(name)
                if found:
                    return current, found
            if data["kind"] == "module":
                return None
            current, first = data["parent"] or "", False

    def _name_may_be_function(self, name: str, scope: str, depth: int) -> bool:
        found = self.bindings_of(name, scope)
        if found is None:
            return name not in _BUILTINS  # a star import, or a global bound later
        owner, bindings = found
        for binding in bindings:
            if isinstance(binding, (Defined, ImportedModule, ImportedName)):
                return True
            if isinstance(binding, Parameter):
                if self.scopes[owner].get("self_name") != name:
                    return True
            elif isinstance(binding, Assigned):
                ref = binding.ref
                if ref.startswith("@") or "(#" in ref:
                    return True
                if ref.startswith("<#") and self._holds_functions(ref, owner, name):
                    return True
                head = ref.split(".", 1)[0].split("(", 1)[0].split("[", 1)[0]
                if (
                    depth
                    and head != name
                    and head.isidentifier()
                    and self._name_may_be_function(head, owner, depth - 1)
                ):
                    return True
        return False

    def _holds_functions(self, ref: str, owner: str, name: str) -> bool:
        """A literal with a possible function among its items, or stored into (by name)."""
        containers = self.scopes[owner].get("containers", [])
        index = int(ref[2:].split(">", 1)[0])
        if index < len(containers) and containers[index].refs:
            return True
        return any(
            store.target.split(".", 1)[0].split("[", 1)[0] == name
            for scope in self.scopes.values()
            for store in scope.get("stores", ())
        )

    def _attribute_may_be_function(self, head: str, attribute: str, scope: str) -> bool:
        """``head.attribute...``: a module's or class's attribute, a method of ``self``, or
        some object's attribute named like a function of the file (a bound method)."""
        found = self.bindings_of(head, scope)
        if found is None:
            return head not in _BUILTINS
        owner, bindings = found
        data = self.scopes[owner]
        if self._methods is None:  # every function name of the file (definitions are done)
            self._methods = {qname.rsplit(".", 1)[-1] for qname in self.defs}
        for binding in bindings:
            if isinstance(binding, Assigned) and attribute in self._methods:
                return True  # obj.method of some object: a bound method, maybe
            if isinstance(binding, (ImportedModule, ImportedName)):
                return True
            if isinstance(binding, Defined) and self.kind_of(binding.qname) == "class":
                return True
            if isinstance(binding, Parameter) and data.get("self_name") == head:
                return f"{data['parent'] or ''}.{attribute}" in self.defs
            if isinstance(binding, Annotated):
                return False
        return False


def constant(node: Node | None) -> str | int | None:
    """A dict key or subscript that is a constant: a plain string or an int, else None."""
    if node is None:
        return None
    if node.type == "integer":
        try:
            return int(node_text(node))
        except ValueError:
            return None
    if node.type == "string":
        parts = node.named_children
        contents = [c for c in parts if c.type == "string_content"]
        if all(c.type in ("string_start", "string_content", "string_end") for c in parts):
            return "".join(node_text(c) for c in contents)
    return None


def _subscript_op(node: Node | None) -> str:
    if node is not None and node.type == "slice":
        bounds = node.named_children
        if len(bounds) == 1 and bounds[0].type == "integer" and node_text(node).endswith(":"):
            return f"[{node_text(bounds[0])}:]"
        return "[]"
    if node is not None and node.type == "unary_operator":
        return "[]"  # d[-1]: positions from the end are not followed
    return key_op(constant(node))
