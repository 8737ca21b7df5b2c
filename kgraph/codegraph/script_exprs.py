"""TS/JS expressions -> refs (:mod:`kgraph.codegraph.refs`), and the calls the summary
records: the base of :class:`~kgraph.codegraph.parse_ts.ScriptSummariser`.

Every stage of the summariser reads expressions: a definition its bases and parameter
types, a binding its value, a call its callee. The reader is a base class, not functions
of its own, because the other TS/JS modules call it on the summariser they are given
(``summariser.ref(node)``). A call's arguments and a literal's items are kept only where
one may be a function (:mod:`.script_refs`); a function value is ``@name``
(:mod:`.script_functions`).

The handlers of calls are here too, since a call is a ref: ``f(x)`` (``f(#N)`` with its
arguments), ``f.call(thisArg, x)`` and ``f.apply(thisArg, xs)`` (calls of ``f``),
``super(...)`` (the base constructor), ``new C()`` (``C``'s constructor), ``@d`` (``d()``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from tree_sitter import Node

from kgraph.codegraph.script_functions import FUNCTION_VALUES
from kgraph.codegraph.summary import UNKNOWN, Scope, Summary, add_call

if TYPE_CHECKING:
    from kgraph.codegraph.script_refs import ScriptRefs

_CALLING_METHODS: Final = ("call", "apply")  # f.call(thisArg, ...) calls f
# A member chain of plain names (``a.b.c``, most callees): its text is its ref, no walk.
_DOTTED_ASCII: Final = re.compile(rb"[A-Za-z_$#][A-Za-z0-9_$]*(?:\.[A-Za-z_$#][A-Za-z0-9_$]*)*")
_LITERALS: Final = {
    "string": "<str>",
    "template_string": "<str>",
    "array": "<list>",
    "number": "<int>",
    "object": "<obj>",
    "regex": "<regex>",
}
_TRANSPARENT: Final = (
    "parenthesized_expression",
    "await_expression",
    "non_null_expression",
    "as_expression",
    "satisfies_expression",
    "type_assertion",
)


class ScriptExpressions:
    """The summariser's reader of expressions, and its handlers of calls (its state: the
    source, the summary under construction, the scope being handled)."""

    source: bytes
    summary: Summary
    scopes: dict[str, Scope]
    scope: str  # the scope of the node being handled (literals are recorded there)
    refs: ScriptRefs
    function_names: dict[int, str]  # function value node id -> its name

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def ref(self, node: Node | None) -> str:
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind in ("identifier", "this", "super", "property_identifier", "type_identifier"):
            return self.text(node)
        if kind == "member_expression":
            raw = self.source[node.start_byte : node.end_byte]
            if _DOTTED_ASCII.fullmatch(raw):
                return _exports_ref(raw.decode())
            prop = node.child_by_field_name("property")
            return f"{self.ref(node.child_by_field_name('object'))}.{self.text(prop)}"
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if (
                function is not None
                and function.type == "member_expression"
                and self.text(function.child_by_field_name("property")) == "bind"
            ):
                return self.ref(function.child_by_field_name("object"))  # f.bind(x) is f
            callee = self.ref(function)
            if callee == UNKNOWN:
                return UNKNOWN
            arguments = node.child_by_field_name("arguments")
            return callee + self.refs.call_op(callee, arguments, self.scope)
        if kind == "new_expression":
            callee = self.ref(node.child_by_field_name("constructor"))
            if callee == UNKNOWN:
                return UNKNOWN
            arguments = node.child_by_field_name("arguments")
            return callee + self.refs.call_op(callee, arguments, self.scope)
        if kind == "subscript_expression":
            base = self.ref(node.child_by_field_name("object"))
            index = node.child_by_field_name("index")
            key = self.text(index).strip("'\"") if index is not None else ""
            if base == UNKNOWN:
                return UNKNOWN
            if index is not None and index.type == "number" and key.isdigit():
                return f"{base}[{key}]"
            return (
                f"{base}['{key}']" if index is not None and index.type == "string" else base + "[]"
            )
        if kind in FUNCTION_VALUES or kind == "method_definition":
            name = self.function_names.get(node.id)
            return "@" + name.replace(".", ":") if name is not None else UNKNOWN
        if kind in ("object", "array"):
            return self.refs.literal(node, self.scope)
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

    # -- calls ----------------------------------------------------------------------------
    def on_decorator(self, node: Node, scope: str) -> None:
        if node.named_children:
            ref = self.ref(node.named_children[0])
            if ref != UNKNOWN:
                add_call(self.summary, scope, ref + "()", node.start_point[0] + 1)

    def on_call(self, call: Node, scope: str) -> None:
        """A call: its callee's ref and its arguments' (``f(#N)``). The query captures the
        call, not the callee: the arguments are then a field away, where the callee's
        ``parent`` would be a walk down from the root (tree-sitter keeps no parent links).
        Call and callee start at one byte, so the calls keep their order (document order,
        inner first) and their scopes and lines."""
        node = call.child_by_field_name("function")
        if node is None:
            return
        raw = self.source[node.start_byte : node.end_byte]
        ref = _exports_ref(raw.decode()) if _DOTTED_ASCII.fullmatch(raw) else self.ref(node)
        if ref in (UNKNOWN, "require", "import"):
            return
        arguments = call.child_by_field_name("arguments")
        skip = 0
        if node.type == "member_expression":  # f.call(thisArg, a), f.apply(thisArg, args)
            method = self.text(node.child_by_field_name("property"))
            obj = node.child_by_field_name("object")
            if method in _CALLING_METHODS and self.refs.may_be_function(obj, scope):
                ref = self.ref(obj)
                skip = 1
                if method == "apply":  # the arguments are an array: not followed
                    arguments = None
        if ref == "super":  # super(...) in a constructor calls the base constructor
            ref = "super.constructor"
        op = self.refs.call_op(ref, arguments, scope, skip) if ref != UNKNOWN else "()"
        if ref != UNKNOWN:
            add_call(self.summary, scope, ref + op, node.start_point[0] + 1)

    def on_new(self, node: Node, scope: str) -> None:
        """``new C(...)`` (``node``: ``C``) is the ref ``C(#N)``: a call of ``C``."""
        made = node.parent
        ref = self.ref(made) if made is not None and made.type == "new_expression" else UNKNOWN
        if ref != UNKNOWN:
            add_call(self.summary, scope, ref, node.start_point[0] + 1)


def _exports_ref(dotted: str) -> str:
    """``module.exports.f`` is ``exports.f``: both name the module's exports."""
    return dotted[7:] if dotted.startswith("module.exports") else dotted
