"""The summariser's handlers for what binds names: ``global``/``nonlocal``, imports,
assignments (with unpacking), returns and yields.

A base of :class:`~kgraph.codegraph.parse_python._PythonSummariser` (its state: the
summary under construction, ``scopes`` and the
:class:`~kgraph.codegraph.python_refs.RefBuilder`). An assignment whose target is an
attribute or an item stores rather than binds: those handlers are this class's base
(:mod:`~kgraph.codegraph.python_stores`); the names that loops, ``with`` and ``except``
bind are handled by its subclass (:mod:`~kgraph.codegraph.python_loops`).
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from kgraph.codegraph.python_elements import ElementTypes
from kgraph.codegraph.python_nodes import (
    F_ALIAS,
    F_LEFT,
    F_MODULE_NAME,
    F_NAME,
    F_RIGHT,
    F_TYPE,
    F_VALUE,
    K_ASSIGNMENT,
    K_IDENTIFIER,
    annotation_refs,
    node_text,
    string_items,
)
from kgraph.codegraph.python_stores import StoreHandlers
from kgraph.codegraph.refs import ITERATE
from kgraph.codegraph.summary import (
    UNKNOWN,
    Binding,
    Container,
    Import,
    ImportedModule,
    Scope,
    StarImport,
    Summary,
    add_binding,
    annotated,
    assigned,
    imported_name,
    unknown,
)

_PATTERNS: Final = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression"}
)
_SEQUENCES: Final = frozenset({"expression_list", "tuple", "list"})


def _value(ref: str, line: int) -> Binding:
    return assigned(ref, line) if ref != UNKNOWN else unknown(line)


class BindingHandlers(StoreHandlers):
    summary: Summary
    elements: ElementTypes  # names annotated as containers (`xs: list[A]`)

    # -- scopes ---------------------------------------------------------------------------
    def on_global(self, node: Node, scope: str) -> None:
        self.scopes[scope].setdefault("globals", []).extend(
            node_text(c) for c in node.named_children if c.type == "identifier"
        )

    def on_nonlocal(self, node: Node, scope: str) -> None:
        self.scopes[scope].setdefault("nonlocals", []).extend(
            node_text(c) for c in node.named_children if c.type == "identifier"
        )

    def bind_in(self, data: Scope, name: str, binding: Binding) -> None:
        """Bind ``name`` in scope ``data`` (and tell the ref builder what it may hold)."""
        add_binding(data, name, binding)
        self.refs.note_binding(name, binding)

    def _bind(self, scope: str, name: str, binding: Binding) -> None:
        """Bind ``name`` where Python would: ``global`` -> module, ``nonlocal`` -> enclosing."""
        data = self.scopes[scope]
        if name in data.get("globals", ()):
            data = self.scopes[""]
        elif name in data.get("nonlocals", ()):
            parent = data["parent"]
            while parent and self.scopes[parent]["kind"] == "class":
                parent = self.scopes[parent]["parent"]
            data = self.scopes[parent or ""]
        self.bind_in(data, name, binding)

    # -- imports --------------------------------------------------------------------------
    def on_import(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        target = self.scopes[scope]
        for child in node.children_by_field_id(F_NAME):
            if child.type == "aliased_import":
                dotted = node_text(child.child_by_field_id(F_NAME))
                alias = node_text(child.child_by_field_id(F_ALIAS))
                self.bind_in(target, alias, ImportedModule("mod", dotted, line))
            else:
                dotted = node_text(child)
                head = dotted.split(".")[0]
                self.bind_in(target, head, ImportedModule("mod", head, line))
            self.summary["imports"].append(Import(scope, dotted, 0, [], line))

    def on_from(self, node: Node, scope: str) -> None:
        line = node.start_point[0] + 1
        module_node = node.child_by_field_id(F_MODULE_NAME)
        level, module = 0, node_text(module_node)
        if module_node is not None and module_node.type == "relative_import":
            prefix = next((c for c in module_node.children if c.type == "import_prefix"), None)
            level = len(node_text(prefix))
            dotted = next((c for c in module_node.named_children if c.type == "dotted_name"), None)
            module = node_text(dotted)
        target = self.scopes[scope]
        names: list[str] = []
        for child in node.children_by_field_id(F_NAME):
            if child.type == "aliased_import":
                name = node_text(child.child_by_field_id(F_NAME))
                alias = node_text(child.child_by_field_id(F_ALIAS))
            else:
                name = alias = node_text(child)
            names.append(name)
            self.bind_in(target, alias, imported_name(module, level, name, line))
        # `from m import *` has no names (the grammar has either): its children are walked
        # only then.
        if not names and any(c.type == "wildcard_import" for c in node.named_children):
            if scope == "":
                self.summary["star"].append(StarImport(module, level))
            names.append("*")
        self.summary["imports"].append(Import(scope, module, level, names, line))

    # -- assignments ----------------------------------------------------------------------
    def on_assign(self, node: Node, scope: str) -> None:
        # In `a = b = C()` the inner `b = C()` is captured too and binds b; here only a.
        target = node.child_by_field_id(F_LEFT)
        right = node.child_by_field_id(F_RIGHT)
        while right is not None and right.kind_id == K_ASSIGNMENT:
            right = right.child_by_field_id(F_RIGHT)
        line = node.start_point[0] + 1
        if target is None:
            return
        if target.kind_id == K_IDENTIFIER:
            annotation = node.child_by_field_id(F_TYPE)  # only a name's (`x: int = 0`) is used
            name = node_text(target)
            if scope == "" and right is not None and name == "__all__":
                self.summary["all"] = string_items(right)
            if annotation is not None or right is None:
                declared: list[Binding] = [annotated(r, line) for r in annotation_refs(annotation)]
                if annotation is not None and not declared:
                    self.elements.note(scope, name, annotation, line)
                for binding in declared or [unknown(line)]:
                    self._bind(scope, name, binding)
                if right is None:
                    return
            self._bind(scope, name, _value(self.refs.ref(right, scope), line))
            return
        ref = self.refs.ref(right, scope) if right is not None else UNKNOWN
        self._destructure(target, right, ref, scope, line)

    def _destructure(
        self, target: Node, source: Node | None, ref: str, scope: str, line: int
    ) -> None:
        """Bind ``target`` to ``ref`` (``source``: the node it came from, when there is one:
        a literal sequence is unpacked item by item, anything else by index)."""
        kind = target.type
        if kind == "identifier":
            self._bind(scope, node_text(target), _value(ref, line))
        elif kind == "attribute":
            self._store_attribute(target, _value(ref, line), scope)
        elif kind == "subscript":
            self._store_item(target, source, ref, scope, line)
        elif kind in ("list_splat_pattern", "list_splat") and target.named_children:
            self._destructure(target.named_children[0], source, ref, scope, line)
        elif kind in _PATTERNS:
            items = [c for c in target.named_children if c.type != "comment"]
            star = next(
                (i for i, c in enumerate(items) if c.type in ("list_splat_pattern", "list_splat")),
                None,
            )
            if source is not None and source.type in _SEQUENCES:
                values = [c for c in source.named_children if c.type != "comment"]
                if not any(v.type == "list_splat" for v in values):
                    self._unpack_literal(items, star, values, scope, line)
                    return
            for i, item in enumerate(items):
                if ref == UNKNOWN or (star is not None and i > star):
                    item_ref = UNKNOWN
                elif i == star:
                    item_ref = f"{ref}[{i}:]" if i == len(items) - 1 else UNKNOWN
                else:
                    item_ref = f"{ref}[{i}]"
                self._destructure(item, None, item_ref, scope, line)

    def _unpack_literal(
        self, items: list[Node], star: int | None, values: list[Node], scope: str, line: int
    ) -> None:
        if star is None:
            if len(items) != len(values):
                for item in items:
                    self._destructure(item, None, UNKNOWN, scope, line)
                return
            for item, value in zip(items, values, strict=True):
                self._destructure(item, value, self.refs.ref(value, scope), scope, line)
            return
        after = len(items) - star - 1
        if len(values) < len(items) - 1:
            return
        middle = values[star : len(values) - after]
        pairs = list(zip(items[:star], values[:star], strict=True))
        pairs += list(zip(items[star + 1 :], values[len(values) - after :], strict=True))
        for item, value in pairs:
            self._destructure(item, value, self.refs.ref(value, scope), scope, line)
        keys: list[str | int | None] = []
        refs: list[str] = []
        for index, value in enumerate(middle):
            if self.refs.may_be_function(value, scope, stored=True):
                keys.append(index)
                refs.append(self.refs.ref(value, scope))
        rest = "<list>"
        if refs:
            containers = self.scopes[scope].setdefault("containers", [])
            containers.append(Container("list", keys, refs, line))
            rest = f"<#{len(containers) - 1}>"
        self._destructure(items[star], None, rest, scope, line)

    def on_augassign(self, node: Node, scope: str) -> None:
        left = node.child_by_field_id(F_LEFT)
        right = node.child_by_field_id(F_RIGHT)
        if scope == "" and node_text(left) == "__all__" and right is not None:
            self.summary["all"] = (self.summary["all"] or []) + string_items(right)

    def on_walrus(self, node: Node, scope: str) -> None:
        name = node_text(node.child_by_field_id(F_NAME))
        ref = self.refs.ref(node.child_by_field_id(F_VALUE), scope)
        self._bind(scope, name, _value(ref, node.start_point[0] + 1))

    # -- returns and yields ---------------------------------------------------------------
    def on_return(self, node: Node, scope: str) -> None:
        target = self.scopes[scope]
        returned = node.named_children if target["kind"] == "function" else None
        if returned:
            ref = self.refs.ref(returned[0], scope)
            if ref != UNKNOWN:
                target.setdefault("returns", []).append(assigned(ref, node.start_point[0] + 1))

    def on_yield(self, node: Node, scope: str) -> None:
        target = self.scopes[scope]
        if target["kind"] != "function":
            return
        line = node.start_point[0] + 1
        yielded = node.named_children[0] if node.named_children else None
        ref = self.refs.ref(yielded, scope) if yielded is not None else UNKNOWN
        if ref != UNKNOWN and any(c.type == "from" for c in node.children):
            ref += ITERATE
        target.setdefault("yields", []).append(_value(ref, line))
