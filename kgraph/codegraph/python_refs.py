"""Python expressions -> refs (:mod:`kgraph.codegraph.refs`), for the summariser.

A call's arguments, and a literal's items, are kept (``(#N)``, ``<#N>``) only when one of
them may be a function: a lambda, a def or class, an imported name, a parameter passed on,
a method (``self.m``), or a container or call holding one. The rest of a program's
arguments (locals, literals) cannot change which function a call reaches, and keeping
them would grow every summary and split the resolver's caches by call site.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Final

from tree_sitter import Node

from kgraph.codegraph.python_names import FileNames
from kgraph.codegraph.python_nodes import (
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_FUNCTION,
    F_KEY,
    F_NAME,
    F_OBJECT,
    F_SUBSCRIPT,
    F_VALUE,
    K_ARGUMENT_LIST,
    K_ATTRIBUTE,
    K_AWAIT,
    K_CALL,
    K_COMMENT,
    K_DICTIONARY,
    K_DICTIONARY_SPLAT,
    K_IDENTIFIER,
    K_KEYWORD_ARGUMENT,
    K_LAMBDA,
    K_LIST_SPLAT,
    K_PAIR,
    K_PARENTHESIZED_EXPRESSION,
    K_SUBSCRIPT,
    by_kind,
    is_dotted,
    kinds,
    node_text,
)
from kgraph.codegraph.refs import key_op
from kgraph.codegraph.summary import (
    UNKNOWN,
    Arguments,
    Assigned,
    Container,
    Scope,
)

if TYPE_CHECKING:
    from kgraph.codegraph.summary import Definition

_BUILTINS: Final = frozenset(dir(builtins))
# Node types are compared by id (python_nodes.kind): literal types -> their ref.
_LITERALS: Final = by_kind(
    {
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
)
_SEQUENCES: Final = by_kind(
    {"list": "list", "tuple": "tuple", "set": "set", "expression_list": "tuple"}
)
_COMPREHENSIONS: Final = by_kind(
    {
        "list_comprehension": "list",
        "set_comprehension": "set",
        "generator_expression": "list",
        "dictionary_comprehension": "dict",
    }
)
_EMPTY_CONTAINERS: Final = kinds("list", "dictionary", "set")  # `[]` etc. may be filled later
# Builtins whose argument is worth keeping whatever it is: what they return is made of it.
_ALWAYS_KEPT: Final = frozenset({"iter", "next", "enumerate"})
# Builtins that never call what they are given, nor give it back: no argument is kept.
_INERT: Final = frozenset(
    {"isinstance", "issubclass", "hasattr", "getattr", "setattr", "delattr", "len", "repr"}
    | {"str", "int", "float", "bool", "type", "id", "print", "hash", "format", "vars", "dir"}
    | {"callable", "super", "sum", "any", "all", "abs", "round", "ord", "chr", "bytes"}
)
# Expressions that are never a function.
_NEVER: Final = kinds(
    *("string", "concatenated_string", "integer", "float", "true", "false", "none"),
    *("binary_operator", "comparison_operator", "boolean_operator", "not_operator"),
    *("unary_operator", "ellipsis"),
)


class RefBuilder(FileNames):
    """Refs of one file's expressions; records arguments and literals into the scopes
    (what its names may hold: :class:`~kgraph.codegraph.python_names.FileNames`)."""

    def __init__(self, scopes: dict[str, Scope], defs: dict[str, Definition]) -> None:
        super().__init__(scopes, defs)
        # Caches keyed by node: a Node hashes by its id in the tree, ~3x cheaper than
        # building a (start_byte, end_byte) key.
        self.lambdas: dict[Node, str] = {}  # lambda node -> "<lambdaN>"
        self._calls: dict[Node, str] = {}  # call node -> its call operation
        self._callees: dict[Node, str] = {}  # call node -> its callee's ref
        self._literals: dict[Node, str] = {}  # literal node -> its ref
        self.source = b""  # the file's bytes: names are sliced from it (node_text, inline)

    # -- refs -----------------------------------------------------------------------------
    def ref(self, node: Node | None, scope: str) -> str:
        """The ref of an expression written in ``scope`` (``?`` when unknowable)."""
        if node is None:
            return UNKNOWN
        kind = node.kind_id
        if kind == K_IDENTIFIER:
            return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if kind == K_ATTRIBUTE:
            text = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
            if is_dotted(text):  # the common case, without walking the chain
                return text
            base = self.ref(node.child_by_field_id(F_OBJECT), scope)
            if base == UNKNOWN:
                return UNKNOWN
            return f"{base}.{node_text(node.child_by_field_id(F_ATTRIBUTE))}"
        if kind == K_CALL:
            callee = self.callee(node, scope)
            if callee == UNKNOWN:
                return UNKNOWN
            if callee.endswith((".get", ".pop", ".setdefault")):
                lookup = self._keyed_lookup(node.child_by_field_id(F_FUNCTION), node, scope)
                if lookup is not None:
                    return lookup
            return callee + self.call_op(node, scope, callee)
        if kind in (K_PARENTHESIZED_EXPRESSION, K_AWAIT):
            inner = node.named_children
            return self.ref(inner[0], scope) if inner else UNKNOWN
        if kind == K_SUBSCRIPT:
            base = self.ref(node.child_by_field_id(F_VALUE), scope)
            if base == UNKNOWN:
                return UNKNOWN
            return base + _subscript_op(node.child_by_field_id(F_SUBSCRIPT))
        if kind == K_LAMBDA:
            name = self.lambdas.get(node)
            return f"@{name}" if name else UNKNOWN
        if kind in _SEQUENCES or kind in _COMPREHENSIONS or kind == K_DICTIONARY:
            return self.literal(node, scope)
        return _LITERALS.get(kind, UNKNOWN)

    def callee(self, call: Node, scope: str) -> str:
        """The ref of what ``call`` calls (its ``function`` node), once per call node: a
        call nested in an argument or assigned is met again as a call of its own."""
        found = self._callees.get(call)
        if found is None:
            found = self._callees[call] = self.ref(call.child_by_field_id(F_FUNCTION), scope)
        return found

    def called_by_name(self, call: Node, name: str) -> None:
        """Note that ``call`` calls the identifier ``name``: its callee's ref, found while
        the summariser collects the names the file calls (one Node crossing for both)."""
        self._callees[call] = name

    def _keyed_lookup(self, function: Node | None, call: Node, scope: str) -> str | None:
        """``d.get("k")`` on a name holding a literal of this file: the item ``d['k']``."""
        if function is None or function.kind_id != K_ATTRIBUTE:
            return None
        receiver = function.child_by_field_id(F_OBJECT)
        method = node_text(function.child_by_field_id(F_ATTRIBUTE))
        if method not in ("get", "pop", "setdefault") or receiver is None:
            return None
        if receiver.kind_id != K_IDENTIFIER:
            return None
        found = self.bindings_of(node_text(receiver), scope)
        if found is None or not all(
            isinstance(b, Assigned) and b.ref.startswith("<#") for b in found[1]
        ):
            return None
        arguments = call.child_by_field_id(F_ARGUMENTS)
        first = arguments.named_children[0] if arguments and arguments.named_children else None
        key = constant(first)
        return node_text(receiver) + key_op(key) if key is not None else None

    def call_op(self, node: Node, scope: str, callee: str) -> str:
        """``(#N)`` when the call's arguments are kept (same node, same N), else ``()``.
        Positions are kept with ``?`` for what cannot be followed, ``*`` where an unpacked
        ``*args`` makes the rest unknown."""
        found = self._calls.get(node)
        if found is not None:
            return found
        # The checks without a tree-sitter crossing first: each crossing costs more.
        if callee in _INERT and self.bindings_of(callee, scope) is None:
            self._calls[node] = "()"
            return "()"
        arguments = node.child_by_field_id(F_ARGUMENTS)
        children = arguments.named_children if arguments is not None else []
        if not children or arguments is None or arguments.kind_id != K_ARGUMENT_LIST:
            self._calls[node] = "()"
            return "()"
        always = callee in _ALWAYS_KEPT
        positional: list[str] = []
        keywords: dict[str, str] = {}
        kept = False
        may_be_function = self.may_be_function
        for child in children:
            kind = child.kind_id
            if kind in _NEVER:  # literals: the common case
                positional.append(UNKNOWN)
            elif kind == K_COMMENT:
                continue
            elif kind == K_KEYWORD_ARGUMENT:
                value = child.child_by_field_id(F_VALUE)
                if (
                    value is not None
                    and value.kind_id not in _NEVER
                    and may_be_function(value, scope)
                ):
                    name = node_text(child.child_by_field_id(F_NAME))
                    keywords[name] = self.ref(value, scope)
                    kept = True
            elif kind == K_LIST_SPLAT:
                positional.append("*")
                break  # positions unknown from here on
            elif kind == K_DICTIONARY_SPLAT:
                keywords["**"] = UNKNOWN
            elif kind == K_IDENTIFIER:  # the commonest argument: its ref is its text
                name = self.source[child.start_byte : child.end_byte].decode("utf-8", "replace")
                if always or name in self.function_names:  # may_be_function's rule, inline
                    positional.append(name)
                    kept = True
                else:
                    positional.append(UNKNOWN)
            elif always or may_be_function(child, scope):
                ref = self.ref(child, scope)
                positional.append(ref)
                kept = kept or ref != UNKNOWN
            else:
                positional.append(UNKNOWN)
        op = "()"
        if kept:
            op = self.add_arguments(scope, Arguments(positional, keywords, False))
        self._calls[node] = op
        return op

    def add_arguments(self, scope: str, arguments: Arguments) -> str:
        target = self.scopes[scope].setdefault("args", [])
        target.append(arguments)
        return f"(#{len(target) - 1})"

    def literal(self, node: Node, scope: str) -> str:
        """``<#N>`` for a literal or comprehension holding a possible function, else its
        builtin type (``<list>``); a generator expression holding none is ``?``."""
        found = self._literals.get(node)
        if found is not None:
            return found
        kind = node.kind_id
        keys: list[str | int | None] = []
        refs: list[str] = []
        if kind in _COMPREHENSIONS:
            body = node.child_by_field_id(F_BODY)
            if body is not None and body.kind_id == K_PAIR:
                body = body.child_by_field_id(F_VALUE)
            if self.may_be_function(body, scope, stored=True):
                keys, refs = [None], [self.ref(body, scope)]
        elif kind == K_DICTIONARY:
            for pair in node.named_children:
                if pair.kind_id != K_PAIR:
                    continue
                value = pair.child_by_field_id(F_VALUE)
                if self.may_be_function(value, scope, stored=True):
                    keys.append(constant(pair.child_by_field_id(F_KEY)))
                    refs.append(self.ref(value, scope))
        else:
            exact, index = True, -1
            for item in node.named_children:
                item_kind = item.kind_id
                if item_kind == K_COMMENT:
                    continue
                index += 1
                if item_kind in _NEVER:  # strings, numbers: the common items
                    continue
                if item_kind == K_LIST_SPLAT:
                    exact = False
                    inner = item.named_children[0] if item.named_children else None
                    if self.may_be_function(inner, scope, stored=True):
                        keys.append(None)
                        refs.append(self.ref(inner, scope) + "[*]")
                elif self.may_be_function(item, scope, stored=True):
                    keys.append(index if exact else None)
                    refs.append(self.ref(item, scope))
        if refs or (kind in _EMPTY_CONTAINERS and not node.named_children):
            target = self.scopes[scope].setdefault("containers", [])
            kind_name = _COMPREHENSIONS.get(kind) or _SEQUENCES.get(kind, "dict")
            target.append(Container(kind_name, keys, refs, node.start_point[0] + 1))
            ref = f"<#{len(target) - 1}>"
        else:
            ref = _LITERALS.get(kind, UNKNOWN)
        self._literals[node] = ref
        return ref

    # -- what may hold a function ---------------------------------------------------------
    def may_be_function(self, node: Node | None, scope: str, stored: bool = False) -> bool:
        """Whether the value of ``node`` may be a function (see the module docstring), by
        names alone: the file's :attr:`function_names`, its imported names and classes,
        and the names of its functions (``obj.method``). A parameter counts when the file
        calls that name, or (``stored``) when it is put in a literal or a store."""
        if node is None:
            return False
        kind = node.kind_id
        if kind == K_IDENTIFIER:
            text = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
            return text in self.function_names or (stored and text in self.parameters)
        if kind in _NEVER:
            return False
        if kind == K_LAMBDA:
            return True
        if kind == K_ATTRIBUTE:
            head, _, rest = node_text(node).partition(".")
            attribute = rest.split(".", 1)[0]
            if head in self.modules or head in self.classes:
                return True
            if self.methods is None:  # every function name of the file (definitions: done)
                self.methods = {qname.rsplit(".", 1)[-1] for qname in self.defs}
            return attribute in self.methods  # self.method, obj.method: a bound method
        if kind == K_CALL:
            return "(#" in self.ref(node, scope).rsplit(".", 1)[-1]
        if kind == K_SUBSCRIPT:
            return self.may_be_function(node.child_by_field_id(F_VALUE), scope, stored)
        if kind in (K_PARENTHESIZED_EXPRESSION, K_AWAIT):
            inner = node.named_children
            return bool(inner) and self.may_be_function(inner[0], scope, stored)
        if kind in _SEQUENCES or kind in _COMPREHENSIONS or kind == K_DICTIONARY:
            ref = self.literal(node, scope)
            if not ref.startswith("<#"):
                return False
            return bool(self.scopes[scope]["containers"][int(ref[2:-1])].refs)
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
