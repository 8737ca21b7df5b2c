"""Readers of tree-sitter Python nodes for :mod:`kgraph.codegraph.parse_python`: node text,
the ref of an expression, the classes an annotation names, the names a target binds, and a
definition's decorators and parameters.

They use no summariser state, only the source being summarised (:func:`set_source`).
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node

from kgraph.codegraph.summary import UNKNOWN, add_binding

_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
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

# The source of the file being summarised (set per parse; one parse at a time per process).
_source = b""


def set_source(source: bytes) -> None:
    """Make ``source`` the bytes the readers slice (until the next call)."""
    global _source
    _source = source


def node_text(node: Node | None) -> str:
    # Slicing the source is ~6x faster than Node.text.
    if node is None:
        return ""
    return _source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def expr_ref(node: Node | None) -> str:
    """The compact ref of an expression (see :mod:`summary`); ``?`` when unknowable."""
    if node is None:
        return UNKNOWN
    kind = node.type
    if kind == "identifier":
        return node_text(node)
    if kind == "attribute":
        text = node_text(node)
        if _DOTTED.fullmatch(text):  # the common case, without walking the chain
            return text
        base = expr_ref(node.child_by_field_name("object"))
        return f"{base}.{node_text(node.child_by_field_name('attribute'))}"
    if kind == "call":
        return expr_ref(node.child_by_field_name("function")) + "()"
    if kind in ("parenthesized_expression", "await"):
        inner = node.named_children
        return expr_ref(inner[0]) if inner else UNKNOWN
    if kind == "subscript":
        return UNKNOWN
    return _LITERALS.get(kind, UNKNOWN)


def annotation_refs(node: Node | None) -> list[str]:
    """Class refs an annotation names: ``Optional[A]``, ``A | None``, ``"A"`` -> ``["A"]``."""
    if node is None:
        return []
    kind = node.type
    if kind == "type":
        return [r for child in node.named_children for r in annotation_refs(child)]
    if kind in ("identifier", "attribute"):
        ref = expr_ref(node)
        return [] if ref in ("None", UNKNOWN) else [ref]
    if kind == "string":
        content = "".join(node_text(c) for c in node.named_children if c.type == "string_content")
        content = content.strip()
        if content.replace(".", "").replace("_", "").isalnum():
            return [content]
        return []
    if kind == "binary_operator":
        return annotation_refs(node.child_by_field_name("left")) + annotation_refs(
            node.child_by_field_name("right")
        )
    if kind in ("generic_type", "subscript"):
        head = node.named_children[0] if node.named_children else None
        name = node_text(head).rsplit(".", 1)[-1]
        if name in ("Optional", "Union", "Annotated", "Final", "ClassVar"):
            args = node.named_children[1:]
            refs = [r for a in args for r in annotation_refs(a)]
            return refs[:1] if name in ("Annotated", "Final", "ClassVar") else refs
        return []
    if kind == "type_parameter":
        return [r for child in node.named_children for r in annotation_refs(child)]
    return []


def identifiers(node: Node) -> list[str]:
    """Names bound by a target pattern (``a``, ``a, (b, *c)``); attributes/subscripts skipped."""
    if node.type == "identifier":
        return [node_text(node)]
    if node.type in (
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "list_splat_pattern",
        "as_pattern_target",
        "parenthesized_expression",
        "tuple",
        "list",
    ):
        return [name for child in node.named_children for name in identifiers(child)]
    return []


def string_items(node: Node) -> list[str]:
    """String literals in a list/tuple expression (``__all__ = ["a", "b"]``)."""
    items = []
    for child in node.named_children:
        if child.type == "string":
            items.append(
                "".join(node_text(c) for c in child.named_children if c.type == "string_content")
            )
    return items


def decorator_names(node: Node) -> list[str]:
    """The decorators of a def/class, as written (``@a.b(x)`` -> ``a.b``)."""
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    names = []
    for child in parent.named_children:
        if child.type == "decorator" and child.named_children:
            expr = child.named_children[0]
            if expr.type == "call":
                expr = expr.child_by_field_name("function") or expr
            names.append(node_text(expr))
    return names


def bind_parameters(params: Node | None, scope: dict[str, Any], is_method: bool, line: int) -> None:
    """Bind a function's parameters in its ``scope``; a method's first one is its self/cls."""
    if params is None:
        return
    index = 0
    for child in params.named_children:
        kind = child.type
        if kind == "identifier":
            name, annotation = node_text(child), None
        elif kind == "typed_parameter":
            first = child.named_children[0]
            if first.type != "identifier":  # *args: T / **kw: T
                for n in identifiers(first.named_children[0] if first.named_children else first):
                    add_binding(scope, n, ["unk", line])
                index += 1
                continue
            name, annotation = node_text(first), child.child_by_field_name("type")
        elif kind in ("typed_default_parameter", "default_parameter"):
            name_node = child.child_by_field_name("name")
            name, annotation = node_text(name_node), child.child_by_field_name("type")
        elif kind in ("list_splat_pattern", "dictionary_splat_pattern"):
            for n in identifiers(child.named_children[0]) if child.named_children else []:
                add_binding(scope, n, ["unk", line])
            index += 1
            continue
        else:
            continue
        if index == 0 and is_method and scope.get("m") != "static":
            scope["s"] = name
        refs = annotation_refs(annotation)
        if refs:
            for ref in refs:
                add_binding(scope, name, ["ann", ref, line])
        else:
            add_binding(scope, name, ["param", index, line])
        index += 1
