"""Readers of tree-sitter Python nodes for :mod:`kgraph.codegraph.parse_python`: node text,
the classes an annotation names, the names a target binds, a definition's decorators and
parameters, string literals.

They use no summariser state, only the source being summarised (:func:`set_source`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, TypeVar

import tree_sitter_python
from tree_sitter import Language, Node

PYTHON: Final = Language(tree_sitter_python.language())


def _field(name: str) -> int:
    found = PYTHON.field_id_for_name(name)
    if found is None:
        raise LookupError(f"no field {name!r} in the Python grammar")
    return found


# Field ids of the grammar: child_by_field_id is ~2x faster than child_by_field_name, which
# looks the name up on every call (1.4 million calls summarising sqlalchemy).
F_ALIAS: Final = _field("alias")
F_ARGUMENTS: Final = _field("arguments")
F_ATTRIBUTE: Final = _field("attribute")
F_BODY: Final = _field("body")
F_DEFINITION: Final = _field("definition")
F_FUNCTION: Final = _field("function")
F_KEY: Final = _field("key")
F_LEFT: Final = _field("left")
F_MODULE_NAME: Final = _field("module_name")
F_NAME: Final = _field("name")
F_OBJECT: Final = _field("object")
F_PARAMETERS: Final = _field("parameters")
F_RETURN_TYPE: Final = _field("return_type")
F_RIGHT: Final = _field("right")
F_SUBSCRIPT: Final = _field("subscript")
F_SUPERCLASSES: Final = _field("superclasses")
F_TYPE: Final = _field("type")
F_VALUE: Final = _field("value")


def kind(name: str) -> int:
    """The id of the named node type ``name`` (``Node.kind_id``). Hot paths compare ids:
    ``Node.type`` builds a new string on every read (~70 ns against ~37 for the id, which
    is a cached small int), and a set lookup then hashes that string."""
    found = PYTHON.id_for_node_kind(name, True)
    if not found:  # None, or 0 (the end symbol) for a name the grammar lacks
        raise LookupError(f"no node type {name!r} in the Python grammar")
    return found


def kinds(*names: str) -> frozenset[int]:
    return frozenset(kind(name) for name in names)


V = TypeVar("V")


def by_kind(table: dict[str, V]) -> dict[int, V]:
    """``table`` (node type name -> value) keyed by the types' ids instead."""
    return {kind(name): value for name, value in table.items()}


K_ARGUMENT_LIST: Final = kind("argument_list")
K_ASSIGNMENT: Final = kind("assignment")
K_ATTRIBUTE: Final = kind("attribute")
K_AWAIT: Final = kind("await")
K_CALL: Final = kind("call")
K_COMMENT: Final = kind("comment")
K_DICTIONARY: Final = kind("dictionary")
K_DICTIONARY_SPLAT: Final = kind("dictionary_splat")
K_IDENTIFIER: Final = kind("identifier")
K_KEYWORD_ARGUMENT: Final = kind("keyword_argument")
K_LAMBDA: Final = kind("lambda")
K_LIST_SPLAT: Final = kind("list_splat")
K_PAIR: Final = kind("pair")
K_PARENTHESIZED_EXPRESSION: Final = kind("parenthesized_expression")
K_SUBSCRIPT: Final = kind("subscript")

_DOTTED: Final = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


@lru_cache(maxsize=1 << 14)
def is_dotted(text: str) -> bool:
    """Whether ``text`` is a dotted name (``a.b.c``). Cached: the same texts (``self.x``,
    ``Optional``) come back all the time, and a cache hit is ~5x cheaper than the regex."""
    return _DOTTED.fullmatch(text) is not None


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


def annotation_refs(node: Node | None) -> list[str]:
    """Class refs an annotation names: ``Optional[A]``, ``A | None``, ``"A"`` -> ``["A"]``."""
    if node is None:
        return []
    kind = node.type
    if kind == "type":
        return [r for child in node.named_children for r in annotation_refs(child)]
    if kind in ("identifier", "attribute"):
        text = "".join(node_text(node).split())
        return [text] if text != "None" and is_dotted(text) else []
    if kind == "string":
        content = "".join(node_text(c) for c in node.named_children if c.type == "string_content")
        content = content.strip()
        if content.replace(".", "").replace("_", "").isalnum():
            return [content]
        return []
    if kind == "binary_operator":
        return annotation_refs(node.child_by_field_id(F_LEFT)) + annotation_refs(
            node.child_by_field_id(F_RIGHT)
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


def decorator_names(decorated: Node | None) -> list[str]:
    """The decorators of a def/class (``decorated``: its decorated_definition, None when it
    has none), as written (``@a.b(x)`` -> ``a.b``)."""
    if decorated is None:
        return []
    names = []
    for child in decorated.named_children:
        if child.type == "decorator" and child.named_children:
            expr = child.named_children[0]
            if expr.type == "call":
                expr = expr.child_by_field_id(F_FUNCTION) or expr
            names.append(node_text(expr))
    return names


def parameters(params: Node | None) -> list[tuple[str, str, Node | None, Node | None]]:
    """A def's or lambda's parameters in order: (name, kind, annotation, default) with the
    kinds of :class:`~kgraph.codegraph.summary.ParamSpec` (``*``/``/`` markers skipped;
    a parameter before ``/`` is ``posonly``, after ``*`` or ``*args`` ``kwonly``)."""
    if params is None:
        return []
    found: list[tuple[str, str, Node | None, Node | None]] = []
    keyword_only = False
    for child in params.named_children:
        kind = child.type
        if kind == "identifier":  # the common case: no annotation, no default
            found.append((node_text(child), "kwonly" if keyword_only else "pos", None, None))
            continue
        annotation = child.child_by_field_id(F_TYPE)
        default = child.child_by_field_id(F_VALUE) if "default" in kind else None
        if kind == "positional_separator":
            found = [(n, "posonly" if k == "pos" else k, a, d) for n, k, a, d in found]
            continue
        if kind == "keyword_separator":
            keyword_only = True
            continue
        if kind == "typed_parameter" and child.named_children:
            first = child.named_children[0]
            if first.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                child, kind = first, first.type
            else:
                found.append(
                    (node_text(first), "kwonly" if keyword_only else "pos", annotation, None)
                )
                continue
        if kind in ("default_parameter", "typed_default_parameter"):
            name = node_text(child.child_by_field_id(F_NAME))
            found.append((name, "kwonly" if keyword_only else "pos", annotation, default))
        elif kind in ("list_splat_pattern", "dictionary_splat_pattern"):
            names = identifiers(child.named_children[0]) if child.named_children else []
            star = kind == "list_splat_pattern"
            for name in names:
                found.append((name, "star" if star else "dstar", annotation, None))
            keyword_only = keyword_only or star
    return found
