"""Python source -> :mod:`summary` with tree-sitter (any Python version's syntax, tolerant).

One tree-sitter query collects every node of interest in document order (the traversal
runs in C); the byte ranges of ``def``/``class`` bodies give each node its scope
(:mod:`~kgraph.codegraph.spans`). Half-edited files parse into ERROR nodes, which are
counted; everything around them is kept. Expressions, annotations, targets and parameters
are read by :mod:`~kgraph.codegraph.python_nodes`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import attrgetter
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from kgraph.codegraph.python_nodes import (
    annotation_refs,
    bind_parameters,
    decorator_names,
    expr_ref,
    identifiers,
    node_text,
    set_source,
    string_items,
)
from kgraph.codegraph.spans import Spans
from kgraph.codegraph.summary import (
    UNKNOWN,
    Summary,
    add_binding,
    add_call,
    new_scope,
    new_summary,
)

# Capture name -> node type. Definitions are handled first (they create the scopes), then
# every other capture list; each node finds its scope by byte offset.
_DEFINITIONS = {"def": "function_definition", "class": "class_definition"}
_OTHERS = {
    "decorator": "decorator",
    "import": "import_statement",
    "from": "import_from_statement",
    "assign": "assignment",
    "augassign": "augmented_assignment",
    "for": "for_statement",
    "as": "as_pattern",
    "walrus": "named_expression",
    "global": "global_statement",
    "nonlocal": "nonlocal_statement",
    "return": "return_statement",
    "typealias": "type_alias_statement",
    "with": "with_item",
}
_START = attrgetter("start_byte")
_DOTTED_ASCII = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# Decorators that only wrap a method; not recorded as calls (noise in every class).
_PLAIN_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "abstractmethod",
        "abc.abstractmethod",
        "overload",
        "typing.overload",
        "override",
    }
)


@lru_cache(maxsize=1)
def _language() -> tuple[Parser, Query, Query]:
    import tree_sitter_python

    language = Language(tree_sitter_python.language())
    patterns = {**_DEFINITIONS, **_OTHERS}
    source = "\n".join(f"({t}) @{name}" for name, t in patterns.items())
    query = Query(language, source + "\n(call function: (_) @callee)")
    return Parser(language), query, Query(language, "(ERROR) @error")


class _PythonSummariser:
    def __init__(self) -> None:
        self.summary = new_summary("python")
        self.scopes: dict[str, dict[str, Any]] = self.summary["scopes"]
        self.spans = Spans()
        self.source = b""

    def run(self, source: bytes) -> Summary:
        self.source = source
        set_source(source)
        parser, query, error_query = _language()
        tree = parser.parse(source)
        captures = QueryCursor(query).captures(tree.root_node)
        definitions = sorted(
            [(n.start_byte, name, n) for name in _DEFINITIONS for n in captures.get(name, ())],
            key=lambda item: item[0],
        )
        for _start, name, node in definitions:
            scope = self.spans.enclosing(node)
            if name == "def":
                self.on_def(node, scope, name)
            else:
                self.on_class(node, scope, name)
        handlers = {  # global/nonlocal first: they decide where later bindings go
            "global": self.on_global,
            "nonlocal": self.on_global,
            "decorator": self.on_decorator,
            "callee": self.on_callee,
            "import": self.on_import,
            "from": self.on_from,
            "assign": self.on_assign,
            "augassign": self.on_augassign,
            "for": self.on_for,
            "as": self.on_as,
            "walrus": self.on_walrus,
            "return": self.on_return,
            "typealias": self.on_typealias,
            "with": self.on_with,
        }
        scope_for = self.spans.scope_for
        for name, handler in handlers.items():
            # Capture lists come in match-completion order, which varies from run to run:
            # in document order, bindings apply in order and an edge met twice keeps its
            # first line, so the same file always gives the same summary and edges.
            nodes = sorted(captures.get(name, ()), key=_START)
            for node in nodes:
                handler(node, scope_for(node), name)
        if tree.root_node.has_error:
            errors = QueryCursor(error_query).captures(tree.root_node).get("error", [])
            self.summary["errors"] = max(len(errors), 1)
        self.finish()
        set_source(b"")
        return self.summary

    # -- definitions --------------------------------------------------------------------
    def _qname(self, parent: str, name: str) -> str:
        return f"{parent}.{name}" if parent else name

    def on_def(self, node: Node, parent: str, _kind: str) -> None:
        name = node_text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if not name or body is None:
            return
        qname = self._qname(parent, name)
        parent_scope = self.scopes[parent]
        line = node.start_point[0] + 1
        decorators = decorator_names(node)
        is_method = parent_scope["k"] == "class"
        add_binding(parent_scope, name, ["def", qname, line])
        self.spans.enter(node, qname, body.start_byte)
        if qname in self.summary["defs"]:  # redefinition / property setter: same entity
            scope = self.scopes[qname]
        else:
            self.summary["defs"][qname] = {
                "k": "method" if is_method else "function",
                "l": line,
                "e": node.end_point[0] + 1,
                "d": decorators,
            }
            scope = self.scopes[qname] = new_scope("function", parent)
        if is_method and ("staticmethod" in decorators or "classmethod" in decorators):
            scope["m"] = "static" if "staticmethod" in decorators else "class"
        bind_parameters(node.child_by_field_name("parameters"), scope, is_method, line)
        for ref in annotation_refs(node.child_by_field_name("return_type")):
            scope.setdefault("r", []).append(["ann", ref, line])

    def on_class(self, node: Node, parent: str, _kind: str) -> None:
        name = node_text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if not name or body is None:
            return
        qname = self._qname(parent, name)
        line = node.start_point[0] + 1
        add_binding(self.scopes[parent], name, ["def", qname, line])
        bases: list[str] = []
        superclasses = node.child_by_field_name("superclasses")
        for child in superclasses.named_children if superclasses is not None else []:
            if child.type == "keyword_argument":
                continue
            if child.type in ("subscript", "generic_type") and child.named_children:
                child = child.named_children[0]  # Generic[T], Base[int] -> the class
            ref = expr_ref(child)
            if ref != UNKNOWN:
                bases.append(ref)
        self.spans.enter(node, qname, body.start_byte)
        if qname not in self.summary["defs"]:
            self.summary["defs"][qname] = {
                "k": "class",
                "l": line,
                "e": node.end_point[0] + 1,
                "b": bases,
                "d": decorator_names(node),
            }
            self.scopes[qname] = new_scope("class", parent)

    def on_typealias(self, node: Node, scope: str, _kind: str) -> None:
        left = node.child_by_field_name("left")
        while left is not None and left.type in ("type", "generic_type") and left.named_children:
            left = left.named_children[0]  # `type Vector[T] = ...` -> Vector
        name = node_text(left)
        if name.isidentifier():
            qname = self._qname(scope, name)
            line = node.start_point[0] + 1
            self.summary["defs"].setdefault(
                qname, {"k": "type", "l": line, "e": node.end_point[0] + 1}
            )
            add_binding(self.scopes[scope], name, ["def", qname, line])

    # -- calls ----------------------------------------------------------------------------
    def on_callee(self, node: Node, scope: str, _kind: str) -> None:
        """``node`` is the called expression of a call (captured directly: no field lookup)."""
        kind = node.type
        if kind == "identifier":
            ref = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        elif kind == "attribute":
            raw = self.source[node.start_byte : node.end_byte]
            ref = raw.decode() if _DOTTED_ASCII.fullmatch(raw) else expr_ref(node)
        else:
            ref = expr_ref(node)
        if ref != UNKNOWN:
            add_call(self.summary, scope, ref, node.start_point[0] + 1)

    def on_decorator(self, node: Node, scope: str, _kind: str) -> None:
        if not node.named_children:
            return
        expr = node.named_children[0]
        name = node_text(expr.child_by_field_name("function") if expr.type == "call" else expr)
        if name in _PLAIN_DECORATORS or name.endswith((".setter", ".getter", ".deleter")):
            return
        ref = expr_ref(expr)  # the decorator (or what dec(...) returns) is called with the def
        if ref != UNKNOWN:
            add_call(self.summary, scope, ref, node.start_point[0] + 1)

    def on_return(self, node: Node, scope: str, _kind: str) -> None:
        target = self.scopes[scope]
        if target["k"] == "function" and node.named_children:
            ref = expr_ref(node.named_children[0])
            if ref != UNKNOWN:
                target.setdefault("r", []).append(["val", ref, node.start_point[0] + 1])

    # -- imports --------------------------------------------------------------------------
    def on_import(self, node: Node, scope: str, _kind: str) -> None:
        line = node.start_point[0] + 1
        target = self.scopes[scope]
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                dotted = node_text(child.child_by_field_name("name"))
                add_binding(
                    target, node_text(child.child_by_field_name("alias")), ["mod", dotted, line]
                )
            else:
                dotted = node_text(child)
                add_binding(target, dotted.split(".")[0], ["mod", dotted.split(".")[0], line])
            self.summary["imports"].append([scope, dotted, 0, [], line])

    def on_from(self, node: Node, scope: str, _kind: str) -> None:
        line = node.start_point[0] + 1
        module_node = node.child_by_field_name("module_name")
        level, module = 0, node_text(module_node)
        if module_node is not None and module_node.type == "relative_import":
            prefix = next((c for c in module_node.children if c.type == "import_prefix"), None)
            level = len(node_text(prefix))
            dotted = next((c for c in module_node.named_children if c.type == "dotted_name"), None)
            module = node_text(dotted)
        target = self.scopes[scope]
        names: list[str] = []
        if any(c.type == "wildcard_import" for c in node.named_children):
            if scope == "":
                self.summary["star"].append([module, level])
            names.append("*")
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = node_text(child.child_by_field_name("name"))
                alias = node_text(child.child_by_field_name("alias"))
            else:
                name = alias = node_text(child)
            names.append(name)
            add_binding(target, alias, ["from", module, level, name, line])
        self.summary["imports"].append([scope, module, level, names, line])

    # -- bindings -------------------------------------------------------------------------
    def on_assign(self, node: Node, scope: str, _kind: str) -> None:
        # In `a = b = C()` the inner `b = C()` is captured too and binds b; here only a.
        target = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        annotation = node.child_by_field_name("type")
        while right is not None and right.type == "assignment":
            right = right.child_by_field_name("right")
        line = node.start_point[0] + 1
        values: list[list[Any]] = (
            [["ann", r, line] for r in annotation_refs(annotation)] if annotation else []
        )
        if right is not None:
            ref = expr_ref(right)
            values.append(["val", ref, line] if ref != UNKNOWN else ["unk", line])
        if target is not None:
            self._bind_target(target, right, values, scope, line)

    def _bind(self, scope: str, name: str, binding: list[Any]) -> None:
        """Bind ``name`` where Python would: ``global`` -> module, ``nonlocal`` -> enclosing."""
        data = self.scopes[scope]
        if name in data.get("g", ()):
            data = self.scopes[""]
        elif name in data.get("n", ()):
            parent = data["p"]
            while parent and self.scopes[parent]["k"] == "class":
                parent = self.scopes[parent]["p"]
            data = self.scopes[parent or ""]
        add_binding(data, name, binding)

    def _bind_target(
        self, target: Node, right: Node | None, values: list[list[Any]], scope: str, line: int
    ) -> None:
        scope_data = self.scopes[scope]
        if target.type == "identifier":
            name = node_text(target)
            if name == "__all__" and scope == "" and right is not None:
                self.summary["all"] = string_items(right)
            for value in values or [["unk", line]]:
                self._bind(scope, name, value)
        elif target.type == "attribute":
            obj = target.child_by_field_name("object")
            self_name = scope_data.get("s")
            is_self = obj is not None and obj.type == "identifier" and node_text(obj) == self_name
            if self_name and is_self:
                class_scope = self.scopes.get(scope_data["p"] or "")
                if class_scope is not None and class_scope["k"] == "class":
                    attr = node_text(target.child_by_field_name("attribute"))
                    attrs = class_scope.setdefault("ia", {})
                    for value in values:
                        attrs.setdefault(attr, []).append([scope, value])
        elif target.type in ("pattern_list", "tuple_pattern", "tuple", "list_pattern"):
            items = target.named_children
            if (
                right is not None
                and right.type in ("expression_list", "tuple")
                and len(right.named_children) == len(items)
            ):
                for item, value_node in zip(items, right.named_children, strict=True):
                    ref = expr_ref(value_node)
                    value = ["val", ref, line] if ref != UNKNOWN else ["unk", line]
                    self._bind_target(item, value_node, [value], scope, line)
            else:
                for name in identifiers(target):
                    self._bind(scope, name, ["unk", line])

    def on_augassign(self, node: Node, scope: str, _kind: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if scope == "" and node_text(left) == "__all__" and right is not None:
            self.summary["all"] = (self.summary["all"] or []) + string_items(right)

    def on_for(self, node: Node, scope: str, _kind: str) -> None:
        left = node.child_by_field_name("left")
        for name in identifiers(left) if left is not None else []:
            self._bind(scope, name, ["unk", node.start_point[0] + 1])

    def on_as(self, node: Node, scope: str, _kind: str) -> None:
        alias = node.child_by_field_name("alias")
        if alias is None or not node.named_children:
            return
        line = node.start_point[0] + 1
        parent = node.parent
        values: list[list[Any]] = [["unk", line]]
        if parent is not None and parent.type == "with_item":
            # `with Cls() as x`: x is what __enter__ returns; most return self.
            ref = expr_ref(node.named_children[0])
            if ref != UNKNOWN:
                values = [["val", ref, line], ["val", f"{ref}.__enter__()", line]]
        for name in identifiers(alias):
            for value in values:
                self._bind(scope, name, value)

    def on_with(self, node: Node, scope: str, _kind: str) -> None:
        """A ``with`` item calls the context manager's ``__enter__`` and ``__exit__``."""
        value = node.child_by_field_name("value")
        if value is not None and value.type == "as_pattern" and value.named_children:
            value = value.named_children[0]
        ref = expr_ref(value)
        if ref != UNKNOWN:
            line = node.start_point[0] + 1
            add_call(self.summary, scope, f"{ref}.__enter__", line)
            add_call(self.summary, scope, f"{ref}.__exit__", line)

    def on_walrus(self, node: Node, scope: str, _kind: str) -> None:
        name = node_text(node.child_by_field_name("name"))
        ref = expr_ref(node.child_by_field_name("value"))
        line = node.start_point[0] + 1
        self._bind(scope, name, ["val", ref, line] if ref != UNKNOWN else ["unk", line])

    def on_global(self, node: Node, scope: str, kind: str) -> None:
        key = "g" if kind == "global" else "n"
        self.scopes[scope].setdefault(key, []).extend(
            node_text(c) for c in node.named_children if c.type == "identifier"
        )

    # -- finishing ------------------------------------------------------------------------
    def finish(self) -> None:
        defs = self.summary["defs"]
        public = self.summary["all"]
        module_bindings = self.scopes[""]["b"]
        for name, bindings in module_bindings.items():
            if name in defs or name == "__all__":
                continue
            if all(b[0] in ("val", "ann", "unk") for b in bindings):
                defs[name] = {"k": "variable", "l": bindings[0][-1], "e": bindings[0][-1]}
        for qname, info in defs.items():
            head, _, rest = qname.partition(".")
            visible = head in public if public is not None else not head.startswith("_")
            if rest and visible:  # members: public when their class is and they are
                visible = defs.get(head, {}).get("k") == "class" and all(
                    not part.startswith("_") or part == "__init__" for part in rest.split(".")
                )
            info["x"] = visible


def parse_python(source: bytes) -> Summary:
    """Summarise one Python file. Never raises on bad syntax: ERROR nodes are counted."""
    return _PythonSummariser().run(source)
