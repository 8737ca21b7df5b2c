"""Python source -> :mod:`summary` with tree-sitter (any Python version's syntax, tolerant).

One tree-sitter query collects every node of interest in document order (the traversal
runs in C); the byte ranges of ``def``/``class``/``lambda`` bodies give each node its scope
(:mod:`~kgraph.codegraph.spans`). Definitions come first (they make the scopes), then
bindings, then calls: whether a call's arguments may hold a function is judged from the
file's bindings (:mod:`~kgraph.codegraph.python_refs`). Half-edited files parse into
ERROR nodes, which are counted; everything around them is kept.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.pytest_fixtures import pytest_fixture
from kgraph.codegraph.python_bindings import STORE_METHODS, BindingHandlers
from kgraph.codegraph.python_elements import ElementTypes
from kgraph.codegraph.python_nodes import (
    F_ARGUMENTS,
    F_BODY,
    F_DEFINITION,
    F_FUNCTION,
    F_LEFT,
    F_NAME,
    F_PARAMETERS,
    F_RETURN_TYPE,
    F_RIGHT,
    F_SUPERCLASSES,
    K_IDENTIFIER,
    PYTHON,
    annotation_refs,
    decorator_names,
    identifiers,
    kinds,
    node_text,
    parameters,
    set_source,
)
from kgraph.codegraph.python_refs import RefBuilder
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Arguments,
    Defined,
    Scope,
    Summary,
    add_binding,
    add_call,
    annotated,
    assigned,
    defined,
    new_scope,
    new_summary,
    param_entry,
    parameter,
)

# Capture name -> node type. Definitions are handled first (they create the scopes), then
# every other capture list in this order; each node finds its scope by byte offset.
_DEFINITIONS: Final = {
    "def": "function_definition",
    "class": "class_definition",
    "lambda": "lambda",
}
_OTHERS: Final = {
    "global": "global_statement",
    "nonlocal": "nonlocal_statement",
    "import": "import_statement",
    "from": "import_from_statement",
    "assign": "assignment",
    "augassign": "augmented_assignment",
    "walrus": "named_expression",
    "forin": "for_in_clause",
    "for": "for_statement",
    "as": "as_pattern",
    "typealias": "type_alias_statement",
    "with": "with_item",
    "return": "return_statement",
    "yield": "yield",
    "decorated": "decorated_definition",
    "raise": "raise_statement",
    "call": "call",
}
# Expressions a name assigned from may hold functions (prepass): lambdas and literals.
_HOLDERS: Final = kinds(
    *("lambda", "list", "tuple", "dictionary", "set", "list_comprehension"),
    *("set_comprehension", "dictionary_comprehension", "generator_expression"),
)
_HOLDERS_OR_NAME: Final = _HOLDERS | {K_IDENTIFIER}
# Tags of bindings that make a module-level name a variable (Assigned, Annotated, Unknown).
_VALUE_TAGS: Final = frozenset({"val", "ann", "unk"})
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


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    language = PYTHON
    patterns = {**_DEFINITIONS, **_OTHERS}
    source = "\n".join(f"({t}) @{name}" for name, t in patterns.items())
    return Parser(language), Query(language, source), Query(language, "(ERROR) @error")


class _PythonSummariser(BindingHandlers):
    def __init__(self) -> None:
        self.scopes: dict[str, Scope] = {}
        self.summary = new_summary("python", self.scopes)
        self.defs = self.summary["defs"]
        self.spans = Spans()
        self.refs = RefBuilder(self.scopes, self.defs)
        self.qnames: dict[int, str] = {}  # def/class/lambda node start -> qualified name
        # def/class node -> its decorated_definition: from the captures, as Node.parent
        # walks down from the root (~1 µs a def).
        self.decorated: dict[Node, Node] = {}
        self.functions: list[tuple[Node, str]] = []  # (def or lambda node, qualified name)
        self.defaults: list[tuple[str, list[tuple[int, Node]]]] = []  # function -> defaults
        self.iterations: list[tuple[Node, str, str, int]] = []
        self.elements = ElementTypes()
        self.fixture_yields: list[tuple[str, list[str], int]] = []  # (def, class refs, line)
        self.called: set[str] = set()  # names the file calls (`name(...)`)
        self.lambda_counts: dict[str, int] = {}
        self.source = b""

    def run(self, source: bytes) -> Summary:
        self.source = self.refs.source = source
        set_source(source)
        parser, query, error_query = _language()
        tree = parser.parse(source)
        captures = QueryCursor(query).captures(tree.root_node)
        source_text = self.source
        for call in captures.get("call", ()):  # the names called: parameters worth following
            function = call.child_by_field_id(F_FUNCTION)
            if function is not None and function.kind_id == K_IDENTIFIER:
                name = source_text[function.start_byte : function.end_byte].decode()
                self.called.add(name)
                self.refs.called_by_name(call, name)
        for decorated in captures.get("decorated", ()):
            definition = decorated.child_by_field_id(F_DEFINITION)
            if definition is not None:
                self.decorated[definition] = decorated
        definitions = sorted(
            [(n.start_byte, name, n) for name in _DEFINITIONS for n in captures.get(name, ())],
            key=lambda item: item[0],
        )
        for _start, name, node in definitions:
            scope = self.spans.enclosing(node)
            if name == "def":
                self.on_def(node, scope)
            elif name == "class":
                self.on_class(node, scope)
            else:
                self.on_lambda(node, scope)
        self.on_defaults()  # lambdas in defaults are all named by now
        self.prepass(captures)
        for name in _OTHERS:
            # Capture lists come in match-completion order, which varies from run to run:
            # in document order, bindings apply in order and an edge met twice keeps its
            # first line, so the same file always gives the same summary and edges.
            handler = getattr(self, f"on_{name}")
            for node, scope in self.spans.placed(captures.get(name, [])):
                handler(node, scope)
        self.on_iterations()
        for qname, refs, line in self.fixture_yields:
            yields = self.scopes[qname].get("yields")
            if yields is not None:
                yields.extend(annotated(ref, line) for ref in refs)
        for node, qname in self.functions:
            if node.type == "lambda":
                body = node.child_by_field_id(F_BODY)
                ref = self.refs.ref(body, qname)
                if ref != UNKNOWN:
                    line = node.start_point[0] + 1
                    self.scopes[qname].setdefault("returns", []).append(assigned(ref, line))
        if tree.root_node.has_error:
            errors = QueryCursor(error_query).captures(tree.root_node).get("error", [])
            self.summary["errors"] = max(len(errors), 1)
        self.finish()
        set_source(b"")
        return self.summary

    def prepass(self, captures: dict[str, list[Node]]) -> None:
        """Names that may hold functions before the handlers bind them (handlers run by
        kind, not in document order): names assigned a lambda or a literal, and the
        variables of loops over literals and names."""
        names = self.refs.function_names
        for node in captures.get("assign", ()):
            right = node.child_by_field_id(F_RIGHT)  # first: few are holders
            if right is not None and right.kind_id in _HOLDERS:
                left = node.child_by_field_id(F_LEFT)
                if left is not None and left.kind_id == K_IDENTIFIER:
                    names.add(node_text(left))
        for name in ("forin", "for"):
            for node in captures.get(name, ()):
                right = node.child_by_field_id(F_RIGHT)
                if right is not None and right.kind_id in _HOLDERS_OR_NAME:
                    left = node.child_by_field_id(F_LEFT)
                    names.update(identifiers(left) if left is not None else ())

    # -- definitions --------------------------------------------------------------------
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

    # -- calls ----------------------------------------------------------------------------
    def on_call(self, node: Node, scope: str) -> None:
        callee = self.refs.callee(node, scope)  # UNKNOWN when the call has no function
        if callee == UNKNOWN:
            return
        line = node.start_point[0] + 1
        add_call(self.summary, scope, callee + self.refs.call_op(node, scope, callee), line)
        if callee.rsplit(".", 1)[-1] in STORE_METHODS:
            function = node.child_by_field_id(F_FUNCTION)
            if function is not None and function.type == "attribute":
                self.on_method_store(node, function, scope, line)
        elif callee in ("iter", "next"):
            arguments = node.child_by_field_id(F_ARGUMENTS)
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            target = self.refs.ref(first, scope)
            if target != UNKNOWN:
                dunder = "__iter__" if callee == "iter" else "__next__"
                add_call(self.summary, scope, f"{target}.{dunder}()", line)

    def on_raise(self, node: Node, scope: str) -> None:
        """``raise A`` instantiates ``A`` (``raise A()`` is a call already)."""
        if not node.named_children:
            return
        raised = node.named_children[0]
        if raised.type in ("identifier", "attribute"):
            ref = self.refs.ref(raised, scope)
            if ref != UNKNOWN:
                add_call(self.summary, scope, ref + "(!)", node.start_point[0] + 1)

    # -- finishing ------------------------------------------------------------------------
    def finish(self) -> None:
        defs = self.defs
        public = self.summary["all"]
        for name, bindings in self.scopes[""]["names"].items():
            if name in defs or name == "__all__":
                continue
            if all(b.tag in _VALUE_TAGS for b in bindings):
                defs[name] = {"kind": "variable", "line": bindings[0].line, "end": bindings[0].line}
        for qname, info in defs.items():
            head, _, rest = qname.partition(".")
            visible = head in public if public is not None else not head.startswith("_")
            if rest and visible:  # members: public when their class is and they are
                visible = self.refs.kind_of(head) == "class" and all(
                    not part.startswith(("_", "<")) or part == "__init__"
                    for part in rest.split(".")
                )
            info["exported"] = visible and not head.startswith("<")


def parse_python(source: bytes) -> Summary:
    """Summarise one Python file. Never raises on bad syntax: ERROR nodes are counted."""
    return _PythonSummariser().run(source)
