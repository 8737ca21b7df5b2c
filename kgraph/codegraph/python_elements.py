"""What iterating a name annotated as a container gives, for the summariser: in ``def
run(jobs: list[Job]): for job in jobs: job.run()`` the loop variable holds instances of
``Job``. The annotation says nothing a call graph can use of the container itself (its
methods are a builtin type's), so the parameter stays bound to what callers pass, and only
a loop over the name (or a comprehension, ``async for``) is typed, by its elements' class.

A name rebound in its scope (``jobs = other()``) is not typed: only the annotation's own
binding is trusted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tree_sitter import Node

from kgraph.codegraph.python_nodes import K_IDENTIFIER, annotation_refs, node_text

if TYPE_CHECKING:
    from kgraph.codegraph.python_refs import RefBuilder

# Generic containers and iterators whose (first) type argument is what iterating them gives.
_ELEMENT_HOLDERS: Final = frozenset(
    {"list", "List", "set", "Set", "frozenset", "FrozenSet", "deque", "Deque"}
    | {"Sequence", "MutableSequence", "Collection", "AbstractSet", "MutableSet"}
    | {"Iterable", "Iterator", "Reversible", "Generator", "AsyncIterable", "AsyncIterator"}
    | {"AsyncGenerator"}
)


def annotation_elements(node: Node | None) -> list[str]:
    """Class refs of what iterating a value of an annotation gives: ``list[A]``,
    ``Iterator[A]``, ``Generator[A, None, None]``, ``tuple[A, ...]``, ``Optional[list[A]]``
    -> ``["A"]``. Mappings (their keys) and tuples of mixed types give nothing."""
    if node is None:
        return []
    kind = node.type
    if kind == "type":
        return [r for child in node.named_children for r in annotation_elements(child)]
    if kind in ("union_type", "binary_operator"):
        return [r for child in node.named_children for r in annotation_elements(child)]
    if kind not in ("generic_type", "subscript") or len(node.named_children) < 2:
        return []
    head = node.named_children[0]
    name = node_text(head).rsplit(".", 1)[-1]
    if kind == "generic_type":  # list[A]: (identifier) (type_parameter (type A))
        args = node.named_children[1].named_children
    else:  # typing.Iterator[A]: the subscript's value, then its subscripts
        args = node.named_children[1:]
    if name in ("Optional", "Union"):
        return [r for arg in args for r in annotation_elements(arg)]
    if name in ("Annotated", "Final", "ClassVar"):
        return annotation_elements(args[0])
    if name in ("tuple", "Tuple"):
        homogeneous = len(args) == 2 and node_text(args[1]) == "..."
        return annotation_refs(args[0]) if homogeneous else []
    if name in _ELEMENT_HOLDERS and (len(args) == 1 or name.endswith("Generator")):
        return annotation_refs(args[0])
    return []


class ElementTypes:
    """The names of one file annotated as containers: (scope, name) -> (the element class
    refs, the line of the annotation's binding)."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, str], tuple[list[str], int]] = {}

    def note(self, scope: str, name: str, annotation: Node, line: int) -> None:
        """``name`` of ``scope`` is annotated ``annotation`` (bound on ``line``)."""
        refs = annotation_elements(annotation)
        if refs:
            self._names[(scope, name)] = (refs, line)

    def of(self, node: Node | None, scope: str, refs: RefBuilder) -> list[str]:
        """The element class refs of iterating ``node`` in ``scope``: a name bound only by
        its container annotation (a parameter, ``xs: list[A] = []``), else none."""
        if not self._names or node is None or node.kind_id != K_IDENTIFIER:
            return []
        name = node_text(node)
        found = refs.bindings_of(name, scope)
        if found is None:
            return []
        entry = self._names.get((found[0], name))
        if entry is None or any(b.line != entry[1] for b in found[1]):
            return []
        return entry[0]
