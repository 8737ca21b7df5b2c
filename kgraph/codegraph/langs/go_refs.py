"""Go expressions and types -> refs (:mod:`kgraph.codegraph.refs`), for the summariser
(:mod:`.go_parse`): names, fields, calls; a composite literal, ``new(T)`` or a type
assertion is ``T(!)``, an instance of ``T``; slices, arrays, maps and channels are typed as
their elements. A call's arguments are kept (``(#N)``) when one of them may be a function,
by names alone (as the Python summariser keeps them, :mod:`kgraph.codegraph.python_refs`);
and each import's ``names`` are what the file uses as ``pkg.Name``.
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

from kgraph.codegraph.langs.common import names_function
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Arguments,
    Assigned,
    Binding,
    Scope,
    annotated,
    assigned,
    new_summary,
    unknown,
)

_QUALIFIED: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
# Arguments that are never a function value.
_NOT_FUNCTIONS: Final = frozenset(
    {
        "interpreted_string_literal",
        "raw_string_literal",
        "int_literal",
        "float_literal",
        "rune_literal",
        "true",
        "false",
        "nil",
        "binary_expression",
        "composite_literal",
        "unary_expression",
        "func_literal",
    }
)
_DOTTED: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LITERALS: Final = {
    "interpreted_string_literal": "<str>",
    "raw_string_literal": "<str>",
    "int_literal": "<int>",
    "float_literal": "<float>",
    "rune_literal": "<int>",
}


class GoExpressions:
    """A Go file's summary in the making, and its expressions as refs (the base of
    :class:`~.go_parse.GoSummariser`)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.scopes: dict[str, Scope] = {}
        self.summary = new_summary("go", self.scopes)
        self.spans = Spans()
        self.aliases: dict[str, int] = {}  # import name -> its index in summary["imports"]
        self.named_closures: set[int] = set()  # start bytes of function literals defined
        self.methods: set[str] | None = None  # the file's method names, once needed
        self._function_like: dict[tuple[str, str], bool] = {}  # (scope, name): may be one

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def ref(self, node: Node | None) -> str:
        """An expression as a ref (see :mod:`~kgraph.codegraph.refs`): names, fields, calls;
        a composite literal, ``new(T)`` or a type assertion is ``T(!)``, an instance of
        ``T``; an index expression is what it indexes (see :meth:`type_ref`)."""
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind == "identifier":
            name = self.text(node)
            return name if name != "_" else UNKNOWN
        if kind == "selector_expression":
            raw = self.source[node.start_byte : node.end_byte]
            if _DOTTED.fullmatch(raw):
                return raw.decode()
            operand = self.ref(node.child_by_field_name("operand"))
            if operand == UNKNOWN:
                return UNKNOWN
            return f"{operand}.{self.text(node.child_by_field_name('field'))}"
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if (
                function is not None
                and function.type == "identifier"
                and self.text(function) == "new"
            ):
                made = self._new_type(node)
                return made + "(!)" if made else UNKNOWN
            callee = self.ref(function)
            return callee + "()" if callee != UNKNOWN else UNKNOWN
        if kind in ("composite_literal", "type_assertion_expression"):
            named = self.type_ref(node.child_by_field_name("type"))
            return named + "(!)" if named else UNKNOWN
        if kind == "index_expression":  # an element: a container is its elements' type
            return self.ref(node.child_by_field_name("operand"))
        if kind == "parenthesized_expression":
            return self.ref(node.named_children[0]) if node.named_children else UNKNOWN
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type in ("&", "*"):
                return self.ref(node.child_by_field_name("operand"))
            return UNKNOWN
        return _LITERALS.get(kind, UNKNOWN)

    def type_ref(self, node: Node | None) -> str:
        """A named type as a ref (``T``, ``pkg.T``; pointers and type arguments dropped);
        a slice, array, map or channel is its elements' type (they have no methods: what
        reaches one is an element, by index or range); "" for other unnamed types
        (functions, literal structs and interfaces)."""
        while node is not None:
            kind = node.type
            if kind == "type_identifier":
                return self.text(node)
            if kind == "qualified_type":
                return self.text(node).replace(" ", "")
            if kind in ("pointer_type", "parenthesized_type"):
                node = node.named_children[0] if node.named_children else None
            elif kind == "generic_type":
                node = node.child_by_field_name("type")
            elif kind in ("slice_type", "array_type", "implicit_length_array_type"):
                node = node.child_by_field_name("element")
            elif kind in ("map_type", "channel_type"):
                node = node.child_by_field_name("value")
            else:
                return ""
        return ""

    def _new_type(self, call: Node) -> str:
        arguments = call.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments and arguments.named_children else None
        return self.type_ref(first)

    def value(self, node: Node, line: int) -> Binding:
        """What ``name := node`` binds the name to: an instance of a type where the
        expression names one, else the expression's value."""
        while node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        if node.type == "unary_expression":
            operand = node.child_by_field_name("operand")
            if operand is not None and operand.type == "composite_literal":
                node = operand
        kind = node.type
        if kind in ("composite_literal", "type_assertion_expression"):
            named = self.type_ref(node.child_by_field_name("type"))
            return annotated(named, line) if named else unknown(line)
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if (
                function is not None
                and function.type == "identifier"
                and self.text(function) == "new"
            ):
                named = self._new_type(node)
                return annotated(named, line) if named else unknown(line)
        ref = self.ref(node)
        return assigned(ref, line) if ref != UNKNOWN else unknown(line)

    def results(self, result: Node | None) -> list[str]:
        """The types of a signature's results, by position ("" where unnamed)."""
        if result is None:
            return []
        if result.type != "parameter_list":
            return [self.type_ref(result)]
        types: list[str] = []
        for declaration in result.named_children:
            if declaration.type == "comment":
                continue
            named = self.type_ref(declaration.child_by_field_name("type"))
            types.extend([named] * max(1, len(declaration.children_by_field_name("name"))))
        return types

    def on_callee(self, node: Node, scope: str) -> None:
        raw = self.source[node.start_byte : node.end_byte]
        ref = raw.decode() if _DOTTED.fullmatch(raw) else self.ref(node)
        if ref == UNKNOWN:
            return
        arguments = node.next_named_sibling  # the call's argument list (or type arguments)
        if arguments is not None and arguments.type != "argument_list":
            arguments = arguments.next_named_sibling
        op = "()"
        if arguments is not None and arguments.named_child_count:
            op = self._arguments(arguments, scope)
        self.summary["calls"].setdefault(scope, []).extend((ref + op, node.start_point[0] + 1))

    def _arguments(self, arguments: Node, scope: str) -> str:
        """The call operation: ``(#N)`` with the arguments kept when one of them may be a
        function (as the Python summariser keeps them: the others cannot change which
        function a call reaches), else ``()``."""
        positional: list[str] = []
        kept = False
        for argument in arguments.named_children:
            kind = argument.type
            if kind == "comment":
                continue
            if kind in _NOT_FUNCTIONS or not self._may_be_function(argument, kind, scope):
                positional.append(UNKNOWN)
                continue
            ref = self.ref(argument)
            positional.append(ref)
            kept = kept or ref != UNKNOWN
        if not kept:
            return "()"
        target = self.scopes[scope].setdefault("args", [])
        target.append(Arguments(positional, {}, False))
        return f"(#{len(target) - 1})"

    def _may_be_function(self, node: Node, kind: str, scope: str) -> bool:
        """By names alone: a name no scope of the function binds to a typed value or a
        call's result (a function of the package, a function-typed parameter, a method
        value ``f := s.Run``), an imported package's name (``pkg.Func``), or ``x.m`` with
        ``m`` a method of this file."""
        if kind == "identifier":
            name = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
            key = (scope, name)
            found = self._function_like.get(key)
            if found is None:
                found = self._function_like[key] = names_function(self.scopes, scope, name)
            return found
        if kind != "selector_expression":
            return False
        operand = node.child_by_field_name("operand")
        if (
            operand is not None
            and operand.type == "identifier"
            and self.text(operand) in self.aliases
        ):
            return True
        if self.methods is None:
            defs = self.summary["defs"]
            self.methods = {q.rpartition(".")[2] for q, d in defs.items() if d["kind"] == "method"}
        return self.text(node.child_by_field_name("field")) in self.methods

    # -- imports --------------------------------------------------------------------------
    def _import_names(self) -> None:
        """Each import's ``names``: what the file uses as ``pkg.Name`` (in calls, values,
        types and embedded fields)."""
        if not self.aliases:
            return
        refs = [str(r) for flat in self.summary["calls"].values() for r in flat[0::2]]
        for scope in self.scopes.values():
            for bindings in scope["names"].values():
                refs.extend(b.ref for b in bindings if isinstance(b, (Assigned, Annotated)))
            refs.extend(b.ref for b in scope.get("returns", ()) if isinstance(b, Annotated))
            for container in scope.get("containers", ()):
                refs.extend(container.refs)
        for info in self.summary["defs"].values():
            refs.extend(info.get("bases", ()))
        used: dict[int, set[str]] = {}
        unbound: set[str] = set()  # pkg.Name with pkg bound nowhere: a package named apart
        aliases, bound = self.aliases, None
        for head, name in _QUALIFIED.findall("\n".join(refs)):  # one pass over every ref
            if head in aliases:
                used.setdefault(aliases[head], set()).add(name)
                continue
            if bound is None:
                bound = {n for scope in self.scopes.values() for n in scope["names"]}
            if head not in bound:
                unbound.add(name)
        if unbound:  # an import whose path does not give its package's name uses them
            for index in set(aliases.values()) - set(used):
                used[index] = unbound
        imports = self.summary["imports"]
        for index, names in used.items():
            imports[index] = imports[index]._replace(names=sorted(names))
