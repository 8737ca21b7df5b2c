"""The summariser's handlers for loops and the statements that bind through a protocol:
``for`` targets and comprehension variables (the iterable's elements, when they may be
functions or an annotation types them), ``with ... as`` and ``except ... as`` aliases;
and the protocol calls these make (``__iter__``/``__next__``, ``__enter__``/``__exit__``).

A subclass of :class:`~kgraph.codegraph.python_bindings.BindingHandlers`, apart from it
because a loop needs judgements of its own: whether its variable's values are worth
following at all (only when the loop calls one), and whether iterating it may run code of
the project.
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

from kgraph.codegraph.python_bindings import BindingHandlers
from kgraph.codegraph.python_nodes import (
    F_ALIAS,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_FUNCTION,
    F_LEFT,
    F_OBJECT,
    F_RIGHT,
    F_VALUE,
    K_IDENTIFIER,
    identifiers,
    node_text,
)
from kgraph.codegraph.refs import ITERATE, PROTOCOL
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Assigned,
    Binding,
    add_call,
    annotated,
    assigned,
    unknown,
)

# Iterating these calls no code of the project: no __iter__/__next__ calls recorded.
_PLAIN_ITERABLES: Final = frozenset(
    {"range", "enumerate", "zip", "sorted", "reversed", "list", "tuple", "set", "dict", "map"}
    | {"filter", "iter", "frozenset", "items", "keys", "values", "split", "splitlines"}
)
_WORD: Final = re.compile(r"\w+")
_CALLED_OR_INDEXED: Final = re.compile(r"\b(\w+)\s*[(\[]")


def _is_async_with(item: Node) -> bool:
    """Whether a ``with_item`` is one of an ``async with`` (the statement's first token)."""
    clause = item.parent
    statement = clause.parent if clause is not None else None
    first = statement.child(0) if statement is not None else None
    return first is not None and first.type == "async"


class LoopHandlers(BindingHandlers):
    """The loop, ``with`` and ``except`` handlers of
    :class:`~kgraph.codegraph.parse_python._PythonSummariser`."""

    iterations: list[tuple[Node, str, str, int]]  # (iterable, its ref, scope, line)

    def _iterate(
        self, left: Node | None, right: Node | None, scope: str, line: int, body: Node | None
    ) -> None:
        """``for left in right`` (or a comprehension's clause): ``left`` holds elements of
        ``right`` when they may be functions (of a literal, a parameter, a call...) and the
        loop calls one (``body``: where to look; None for a comprehension: it is the
        comprehension's own expression, and short), or instances of ``A`` when ``right`` is
        a name annotated as a container of them (``xs: list[A]``); and iterating an object
        calls its ``__iter__`` and the iterator's ``__next__``."""
        ref = self.refs.ref(right, scope)
        typed = self.elements.of(right, scope, self.refs) if left is not None else []
        if left is not None and typed and left.kind_id == K_IDENTIFIER:
            for element_ref in typed:  # `for x in xs` with `xs: list[A]`
                self._bind(scope, node_text(left), annotated(element_ref, line))
        elif left is not None:
            element = UNKNOWN
            if ref != UNKNOWN and (body is None or _calls_a_name(body, identifiers(left))):
                element = ref + ITERATE if self._worth_iterating(right, scope) else UNKNOWN
            self._destructure(left, None, element, scope, line)
        if ref != UNKNOWN and right is not None and right.type in ("call", "identifier"):
            self.iterations.append((right, ref, scope, line))  # decided once all is bound

    def on_iterations(self) -> None:
        """The iteration-protocol calls of the loops whose iterable may be an instance."""
        for right, ref, scope, line in self.iterations:
            if self._may_be_iterable_instance(right, scope):
                add_call(self.summary, scope, ref + PROTOCOL, line)

    def _may_be_iterable_instance(self, node: Node | None, scope: str) -> bool:
        """Whether iterating ``node`` may run code of the project: an instance a call made
        (``Countdown(3)``, ``x`` after ``x = Tree()``) rather than a literal, a builtin's
        result or anything looked up (attributes, parameters: their values are rarely
        known, and most are lists)."""
        if node is None:
            return False
        if node.type == "call":
            function = node.child_by_field_id(F_FUNCTION)
            name = node_text(function).rsplit(".", 1)[-1] if function is not None else ""
            return name not in _PLAIN_ITERABLES
        if node.type != "identifier":
            return False
        found = self.refs.bindings_of(node_text(node), scope)
        return found is not None and any(
            isinstance(b, Annotated) or (isinstance(b, Assigned) and b.ref.endswith(")"))
            for b in found[1]
        )

    def _worth_iterating(self, node: Node | None, scope: str) -> bool:
        """Whether the elements of ``node`` may be functions: a literal or parameter that may
        hold some, a call (a generator, an iterable instance), ``d.items()`` of such a
        ``d``, ``enumerate(x)`` of such an ``x``."""
        if node is None:
            return False
        if node.type == "identifier":  # a parameter (callbacks?), a call's result (a generator?)
            found = self.refs.bindings_of(node_text(node), scope)
            if found is not None and any(
                b[0] == "param" or (b[0] == "val" and str(b[1]).endswith(")")) for b in found[1]
            ):
                return True
        if node.type != "call":
            return self.refs.may_be_function(node, scope, stored=True)
        function = node.child_by_field_id(F_FUNCTION)
        arguments = node.child_by_field_id(F_ARGUMENTS)
        if function is not None and function.type == "attribute":
            method = node_text(function.child_by_field_id(F_ATTRIBUTE))
            if method in ("items", "values", "keys", "copy"):
                return self._worth_iterating(function.child_by_field_id(F_OBJECT), scope)
        if function is not None and node_text(function) in _PLAIN_ITERABLES:
            args = arguments.named_children if arguments is not None else []
            return any(self._worth_iterating(a, scope) for a in args)
        return True

    def on_for(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        if any(c.type == "async" for c in node.children):  # __aiter__/__anext__: only bind
            left = node.child_by_field_id(F_LEFT)
            typed = self.elements.of(node.child_by_field_id(F_RIGHT), scope, self.refs)
            values: list[Binding] = [unknown(line)]
            if typed and left is not None and left.kind_id == K_IDENTIFIER:
                values = [annotated(r, line) for r in typed]  # `xs: AsyncIterator[A]`
            for name in identifiers(left) if left is not None else []:
                for value in values:
                    self._bind(scope, name, value)
            return
        body = node.child_by_field_id(F_BODY)
        self._iterate(
            node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT), scope, line, body
        )

    def on_forin(self, node: Node, scope: str) -> None:
        """A comprehension's ``for``: its variables are bound (in the enclosing scope) only
        when their values may be functions; the rest of the time nothing needs them."""
        right = node.child_by_field_id(F_RIGHT)
        if right is not None and (
            right.type in ("call", "identifier") or self._worth_iterating(right, scope)
        ):
            line = node.start_point[0] + 1
            self._iterate(node.child_by_field_id(F_LEFT), right, scope, line, None)

    def on_as(self, node: Node, scope: str) -> None:
        alias = node.child_by_field_id(F_ALIAS)
        if alias is None or not node.named_children:
            return
        line = node.start_point[0] + 1
        parent = node.parent
        values: list[Binding] = [unknown(line)]
        if parent is not None and parent.type == "with_item":
            # `with Cls() as x`: x is what __enter__ returns; most return self.
            ref = self.refs.ref(node.named_children[0], scope)
            if ref != UNKNOWN:
                enter = "__aenter__" if _is_async_with(parent) else "__enter__"
                values = [assigned(ref, line), assigned(f"{ref}.{enter}()", line)]
        elif parent is not None and parent.type == "except_clause":
            caught = node.named_children[0]
            classes = caught.named_children if caught.type == "tuple" else [caught]
            refs = [self.refs.ref(c, scope) for c in classes]
            values = [annotated(r, line) for r in refs if r != UNKNOWN] or values
        for name in identifiers(alias):
            for value in values:
                self._bind(scope, name, value)

    def on_with(self, node: Node, scope: str) -> None:
        """A ``with`` item calls the context manager's ``__enter__`` and ``__exit__``
        (``async with``: ``__aenter__`` and ``__aexit__``)."""
        value = node.child_by_field_id(F_VALUE)
        if value is not None and value.type == "as_pattern" and value.named_children:
            value = value.named_children[0]
        ref = self.refs.ref(value, scope)
        if ref != UNKNOWN:
            line = node.start_point[0] + 1
            prefix = "__a" if _is_async_with(node) else "__"
            add_call(self.summary, scope, f"{ref}.{prefix}enter__()", line)
            add_call(self.summary, scope, f"{ref}.{prefix}exit__()", line)


def _calls_a_name(node: Node | None, names: list[str]) -> bool:
    """Whether the code of ``node`` calls or subscripts one of ``names`` (``name(``,
    ``name[``): what makes a loop variable's values worth following."""
    if node is None or not names:
        return False
    text = node_text(node)
    if all(_WORD.fullmatch(name) for name in names):
        # One scan for the words followed by ( or [, not a pattern per name: those were
        # compiled anew once there were more than re's cache holds.
        found = set(_CALLED_OR_INDEXED.findall(text))
        return any(name in found for name in names)
    return any(re.search(rf"\b{re.escape(name)}\s*[(\[]", text) for name in names)
