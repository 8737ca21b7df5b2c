"""Python source -> :mod:`summary` with tree-sitter (any Python version's syntax, tolerant).

One tree-sitter query collects every node of interest in document order (the traversal
runs in C); the byte ranges of ``def``/``class``/``lambda`` bodies give each node its scope
(:mod:`~kgraph.codegraph.spans`). Definitions come first (they make the scopes:
:mod:`~kgraph.codegraph.python_definitions`), then bindings (``python_bindings``,
``python_stores``, ``python_loops``), then calls: whether a call's arguments may hold a
function is judged from the file's bindings (:mod:`~kgraph.codegraph.python_refs`).
Half-edited files parse into ERROR nodes, which are counted; everything around them is
kept. The handlers are methods of one summariser, over a chain of base classes (one per
module: a compiled class has a single base).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.python_definitions import DefinitionHandlers
from kgraph.codegraph.python_elements import ElementTypes
from kgraph.codegraph.python_nodes import (
    F_ARGUMENTS,
    F_BODY,
    F_DEFINITION,
    F_FUNCTION,
    F_LEFT,
    F_RIGHT,
    K_IDENTIFIER,
    PYTHON,
    identifiers,
    kinds,
    node_text,
    set_source,
)
from kgraph.codegraph.python_refs import RefBuilder
from kgraph.codegraph.python_stores import STORE_METHODS
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Scope,
    Summary,
    add_call,
    annotated,
    assigned,
    new_summary,
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


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    language = PYTHON
    patterns = {**_DEFINITIONS, **_OTHERS}
    source = "\n".join(f"({t}) @{name}" for name, t in patterns.items())
    return Parser(language), Query(language, source), Query(language, "(ERROR) @error")


class _PythonSummariser(DefinitionHandlers):
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
