"""The summariser's handlers for definitions: ``def``, ``lambda``, ``class`` and ``type``
statements (their scopes and parameters, with each parameter's default evaluated where the
def is), and decorators (``@a @b def f``: ``f`` holds ``a(b(f))``).

A base of :class:`~kgraph.codegraph.parse_python._PythonSummariser`, apart from its run
over the captures because definitions are a pass of their own: they are handled first, in
document order, as each opens the scope (:mod:`~kgraph.codegraph.spans`) that every later
node is placed in, and the parameters they bind decide which names may hold a function.
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from kgraph.codegraph.pytest_fixtures import pytest_fixture
from kgraph.codegraph.python_loops import LoopHandlers
from kgraph.codegraph.python_nodes import (
    F_BODY,
    F_DEFINITION,
    F_FUNCTION,
    F_LEFT,
    F_NAME,
    F_PARAMETERS,
    F_RETURN_TYPE,
    F_SUPERCLASSES,
    annotation_refs,
    decorator_names,
    node_text,
    parameters,
)
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Arguments,
    Defined,
    Definition,
    add_binding,
    add_call,
    annotated,
    assigned,
    defined,
    new_scope,
    param_entry,
    parameter,
)

# Decorators that only wrap a method: neither calls nor a change of what the name holds.
_PLAIN_DECORATORS: Final = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "abstractmethod",
        "abc.abstractmethod",
        "overload",
        "typing.overload",
        "override",
        "typing.override",
    }
)


class DefinitionHandlers(LoopHandlers):
    """The definition handlers of :class:`~kgraph.codegraph.parse_python._PythonSummariser`
    (its state, made there)."""

    defs: dict[str, Definition]
    spans: Spans
    qnames: dict[int, str]
    decorated: dict[Node, Node]
    functions: list[tuple[Node, str]]
    defaults: list[tuple[str, list[tuple[int, Node]]]]
    fixture_yields: list[tuple[str, list[str], int]]
    called: set[str]
    lambda_counts: dict[str, int]

    def _qname(self, parent: str, name: str) -> str:
        return f"{parent}.{name}" if parent else name

    def on_def(self, node: Node, parent: str) -> None:
        name = node_text(node.child_by_field_id(F_NAME))
        body = node.child_by_field_id(F_BODY)
        if not name or body is None:
            return
        qname = self._qname(parent, name)
        parent_scope = self.scopes[parent]
        line = node.start_point[0] + 1
        decorators = decorator_names(self.decorated.get(node))
        is_method = parent_scope["kind"] == "class"
        self.bind_in(parent_scope, name, defined(qname, line))
        self.spans.enter(node, qname, body.start_byte)
        self.qnames[node.start_byte] = qname
        if qname in self.defs:  # redefinition / property setter: same entity
            return
        self.defs[qname] = {
            "kind": "method" if is_method else "function",
            "line": line,
            "end": node.end_point[0] + 1,
        }
        if decorators:
            self.defs[qname]["decorators"] = decorators
            fixture = pytest_fixture(self.decorated.get(node), node, name, decorators)
            if fixture is not None:  # its elements: added to its yields once all are read
                self.defs[qname]["fixture"] = fixture.name
                self.fixture_yields.append((qname, fixture.yields, line))
        scope = self.scopes[qname] = new_scope("function", parent)
        if is_method and ("staticmethod" in decorators or "classmethod" in decorators):
            scope["method"] = "static" if "staticmethod" in decorators else "class"
        self._bind_parameters(node.child_by_field_id(F_PARAMETERS), qname, is_method, line)
        self.functions.append((node, qname))
        for ref in annotation_refs(node.child_by_field_id(F_RETURN_TYPE)):
            scope.setdefault("returns", []).append(annotated(ref, line))

    def on_lambda(self, node: Node, parent: str) -> None:
        body = node.child_by_field_id(F_BODY)
        if body is None:
            return
        count = self.lambda_counts[parent] = self.lambda_counts.get(parent, 0) + 1
        name = f"<lambda{count}>"
        qname = self._qname(parent, name)
        is_method = self.scopes[parent]["kind"] == "class"
        line = node.start_point[0] + 1
        self.refs.lambdas[node] = name
        self.spans.enter(node, qname, body.start_byte)
        self.defs[qname] = {
            "kind": "method" if is_method else "function",
            "line": line,
            "end": node.end_point[0] + 1,
        }
        self.scopes[qname] = new_scope("function", parent)
        self._bind_parameters(node.child_by_field_id(F_PARAMETERS), qname, is_method, line)
        self.functions.append((node, qname))

    def _bind_parameters(self, params: Node | None, qname: str, is_method: bool, line: int) -> None:
        """Bind a function's parameters in its scope; a method's first one is its self/cls.
        An annotated parameter holds an instance of its annotation; the others are bound
        to what callers pass (:class:`Parameter`)."""
        scope = self.scopes[qname]
        specs = parameters(params)
        self_name = None
        for index, (name, kind, annotation, _default) in enumerate(specs):
            if index == 0 and is_method and scope.get("method") != "static" and kind == "pos":
                self_name = scope["self_name"] = name
            refs = (
                [r for r in annotation_refs(annotation) if r.rpartition(".")[2] != "Any"]
                if annotation is not None and kind in ("pos", "posonly", "kwonly")
                else []
            )  # `x: Any` says nothing: bound to what callers pass, as if unannotated
            if refs:
                for ref in refs:
                    add_binding(scope, name, annotated(ref, line))
            else:
                add_binding(scope, name, parameter(index, line))
                if annotation is not None:  # `xs: list[A]`: a loop over xs gives A's
                    self.elements.note(qname, name, annotation, line)
                if name != self_name:
                    self.refs.parameters.add(name)
                    if name in self.called:
                        self.refs.function_names.add(name)
        if specs:
            scope["params"] = [param_entry(name, kind) for name, kind, _a, _d in specs]
            defaults = [(i, d) for i, (_n, _k, _a, d) in enumerate(specs) if d is not None]
            if defaults:
                self.defaults.append((qname, defaults))

    def on_defaults(self) -> None:
        """Parameter defaults, as refs evaluated where the def is (its enclosing scope)."""
        for qname, defaults in self.defaults:
            scope = self.scopes[qname]
            parent = scope["parent"] or ""
            for index, node in defaults:
                ref = self.refs.ref(node, parent)
                if ref != UNKNOWN:
                    scope.setdefault("defaults", {})[str(index)] = ref

    def on_class(self, node: Node, parent: str) -> None:
        name = node_text(node.child_by_field_id(F_NAME))
        body = node.child_by_field_id(F_BODY)
        if not name or body is None:
            return
        qname = self._qname(parent, name)
        line = node.start_point[0] + 1
        self.bind_in(self.scopes[parent], name, defined(qname, line))
        bases: list[str] = []
        superclasses = node.child_by_field_id(F_SUPERCLASSES)
        for child in superclasses.named_children if superclasses is not None else []:
            if child.type == "keyword_argument":
                continue
            if child.type in ("subscript", "generic_type") and child.named_children:
                child = child.named_children[0]  # Generic[T], Base[int] -> the class
            ref = self.refs.ref(child, parent) if child.type in ("identifier", "attribute") else ""
            if ref and ref != UNKNOWN:
                bases.append(ref)
        self.spans.enter(node, qname, body.start_byte)
        self.qnames[node.start_byte] = qname
        if qname not in self.defs:
            self.defs[qname] = {"kind": "class", "line": line, "end": node.end_point[0] + 1}
            if bases:
                self.defs[qname]["bases"] = bases
            decorators = decorator_names(self.decorated.get(node))
            if decorators:
                self.defs[qname]["decorators"] = decorators
            self.scopes[qname] = new_scope("class", parent)

    def on_typealias(self, node: Node, scope: str) -> None:
        left = node.child_by_field_id(F_LEFT)
        while left is not None and left.type in ("type", "generic_type") and left.named_children:
            left = left.named_children[0]  # `type Vector[T] = ...` -> Vector
        name = node_text(left)
        if name.isidentifier():
            qname = self._qname(scope, name)
            line = node.start_point[0] + 1
            self.defs.setdefault(
                qname, {"kind": "type", "line": line, "end": node.end_point[0] + 1}
            )
            self.bind_in(self.scopes[scope], name, defined(qname, line))

    def on_decorated(self, node: Node, scope: str) -> None:
        """``@a @b def f``: ``f`` holds ``a(b(f))``; each application is a call."""
        definition = node.child_by_field_id(F_DEFINITION)
        qname = self.qnames.get(definition.start_byte) if definition is not None else None
        if qname is None:
            return
        name = qname.rsplit(".", 1)[-1]
        value = f"@{name}"
        applied = False
        decorators = [c for c in node.named_children if c.type == "decorator"]
        decorators.reverse()  # (``reversed`` of a list of Any broke mypyc)
        for decorator in decorators:
            if not decorator.named_children:
                continue
            expr = decorator.named_children[0]
            callee = expr.child_by_field_id(F_FUNCTION) if expr.type == "call" else expr
            written = node_text(callee)
            if written in _PLAIN_DECORATORS or written.endswith((".setter", ".getter", ".deleter")):
                continue
            ref = self.refs.ref(expr, scope)
            if ref == UNKNOWN:
                return  # what the name holds cannot be followed: it stays the def
            value = ref + self.refs.add_arguments(scope, Arguments([value], {}, True))
            add_call(self.summary, scope, value, decorator.start_point[0] + 1)
            applied = True
        if applied:
            names = self.scopes[scope]["names"][name]
            names[:] = [
                assigned(value, b.line) if isinstance(b, Defined) and b.qname == qname else b
                for b in names
            ]
