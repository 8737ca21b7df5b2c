"""The summariser's handlers for what binds names and stores values: imports, assignments
(with unpacking), ``for`` targets and comprehension variables, ``with``/``except``
aliases, returns and yields, and stores into containers and attributes.

A mixin of :class:`~kgraph.codegraph.parse_python._PythonSummariser` (its state: the
summary under construction, ``scopes``, ``defs`` and the :class:`RefBuilder`).
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

from kgraph.codegraph.python_elements import ElementTypes
from kgraph.codegraph.python_nodes import (
    F_ALIAS,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_FUNCTION,
    F_KEY,
    F_LEFT,
    F_MODULE_NAME,
    F_NAME,
    F_OBJECT,
    F_RIGHT,
    F_SUBSCRIPT,
    F_TYPE,
    F_VALUE,
    K_ASSIGNMENT,
    K_IDENTIFIER,
    annotation_refs,
    identifiers,
    node_text,
    string_items,
)
from kgraph.codegraph.python_refs import RefBuilder, constant
from kgraph.codegraph.refs import ITERATE, PROTOCOL, split_call
from kgraph.codegraph.summary import (
    UNKNOWN,
    Annotated,
    Assigned,
    Binding,
    Container,
    Defined,
    Definition,
    Import,
    ImportedModule,
    Scope,
    ScopedBinding,
    StarImport,
    Store,
    Summary,
    add_binding,
    add_call,
    annotated,
    assigned,
    imported_name,
    unknown,
)

_PATTERNS: Final = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression"}
)
_SEQUENCES: Final = frozenset({"expression_list", "tuple", "list"})
# Iterating these calls no code of the project: no __iter__/__next__ calls recorded.
_PLAIN_ITERABLES: Final = frozenset(
    {"range", "enumerate", "zip", "sorted", "reversed", "list", "tuple", "set", "dict", "map"}
    | {"filter", "iter", "frozenset", "items", "keys", "values", "split", "splitlines"}
)
STORE_METHODS: Final = frozenset({"append", "add", "insert", "extend", "update", "setdefault"})
_WORD: Final = re.compile(r"\w+")
_CALLED_OR_INDEXED: Final = re.compile(r"\b(\w+)\s*[(\[]")


def _is_async_with(item: Node) -> bool:
    """Whether a ``with_item`` is one of an ``async with`` (the statement's first token)."""
    clause = item.parent
    statement = clause.parent if clause is not None else None
    first = statement.child(0) if statement is not None else None
    return first is not None and first.type == "async"


def _value(ref: str, line: int) -> Binding:
    return assigned(ref, line) if ref != UNKNOWN else unknown(line)


class BindingHandlers:
    summary: Summary
    scopes: dict[str, Scope]
    defs: dict[str, Definition]
    refs: RefBuilder
    iterations: list[tuple[Node, str, str, int]]  # (iterable, its ref, scope, line)
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

    def _store_attribute(self, target: Node, binding: Binding, scope: str) -> None:
        """``self.x = v`` in a method, ``obj.x = v`` for an instance of a class of this
        file, ``Cls.x = v``: the class's instance attribute ``x`` may hold ``v``."""
        obj = target.child_by_field_id(F_OBJECT)
        if obj is None or obj.type != "identifier":
            return
        name = node_text(obj)
        data = self.scopes[scope]
        owner: str | None = None
        if name == data.get("self_name"):
            parent = data["parent"] or ""
            if self.refs.kind_of(parent) == "class":
                owner = parent
        else:
            owner = self._class_held_by(name, scope)
        if owner is not None:
            attr = node_text(target.child_by_field_id(F_ATTRIBUTE))
            attrs = self.scopes[owner].setdefault("attrs", {})
            attrs.setdefault(attr, []).append(ScopedBinding(scope, binding))

    def _class_held_by(self, name: str, scope: str, instance: bool = True) -> str | None:
        """The class of this file ``name`` names (``Cls``) or, as far as its last binding
        says, holds an instance of (``x = Cls()``)."""
        found = self.refs.bindings_of(name, scope)
        if found is None:
            return None
        owner, bindings = found
        binding = bindings[-1]
        if isinstance(binding, Defined):
            return binding.qname if self.refs.kind_of(binding.qname) == "class" else None
        if isinstance(binding, Assigned) and instance:
            callee, op = split_call(binding.ref)
            if op and callee.isidentifier() and callee != name:
                return self._class_held_by(callee, owner, instance=False)
        return None

    def _store_item(
        self, target: Node, source: Node | None, ref: str, scope: str, line: int
    ) -> None:
        """``d[k] = v``: a store into whatever ``d`` holds, when ``v`` may be a function."""
        if source is None or not self.refs.may_be_function(source, scope, stored=True):
            return
        holder = self.refs.ref(target.child_by_field_id(F_VALUE), scope)
        if holder != UNKNOWN:
            key = constant(target.child_by_field_id(F_SUBSCRIPT))
            self.scopes[scope].setdefault("stores", []).append(Store(holder, key, ref, line))
            self.refs.function_names.add(_head(holder))

    def on_method_store(self, call: Node, function: Node, scope: str, line: int) -> None:
        """``x.append(f)``, ``x.extend([f])``, ``x.update({"k": f})``, ``x.setdefault("k",
        f)``, ``x.add(f)``, ``x.insert(0, f)``: stores into what ``x`` holds."""
        method = node_text(function.child_by_field_id(F_ATTRIBUTE))
        arguments = call.child_by_field_id(F_ARGUMENTS)
        if method not in STORE_METHODS or arguments is None:
            return
        args = [c for c in arguments.named_children if c.type != "comment"]
        if not args or any(a.type == "keyword_argument" for a in args):
            return
        entries: list[tuple[str | int | None, Node | None, str]] = []
        if method in ("append", "add"):
            entries = [(None, args[0], "")]
        elif method == "insert" and len(args) == 2:
            entries = [(None, args[1], "")]
        elif method == "extend":
            entries = [(None, args[0], ITERATE)]
        elif method == "setdefault" and len(args) == 2:
            entries = [(constant(args[0]), args[1], "")]
        elif method == "update" and args[0].type == "dictionary":
            entries = [
                (constant(p.child_by_field_id(F_KEY)), p.child_by_field_id(F_VALUE), "")
                for p in args[0].named_children
                if p.type == "pair" and p.child_by_field_id(F_VALUE) is not None
            ]
        holder = self.refs.ref(function.child_by_field_id(F_OBJECT), scope)
        if holder == UNKNOWN:
            return
        for key, value, suffix in entries:
            if value is not None and self.refs.may_be_function(value, scope, stored=True):
                stored = self.refs.ref(value, scope) + suffix
                self.scopes[scope].setdefault("stores", []).append(Store(holder, key, stored, line))

    def on_augassign(self, node: Node, scope: str) -> None:
        left = node.child_by_field_id(F_LEFT)
        right = node.child_by_field_id(F_RIGHT)
        if scope == "" and node_text(left) == "__all__" and right is not None:
            self.summary["all"] = (self.summary["all"] or []) + string_items(right)

    def on_walrus(self, node: Node, scope: str) -> None:
        name = node_text(node.child_by_field_id(F_NAME))
        ref = self.refs.ref(node.child_by_field_id(F_VALUE), scope)
        self._bind(scope, name, _value(ref, node.start_point[0] + 1))

    # -- loops, with, except --------------------------------------------------------------
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


def _head(ref: str) -> str:
    """The first name of a ref (``d['k'].x`` -> ``d``)."""
    return ref.split(".", 1)[0].split("[", 1)[0].split("(", 1)[0]
