"""The summariser's handlers for stores into containers and attributes: ``self.x = v``
(an instance attribute of the class), ``d[k] = v``, and ``x.append(f)`` and its kin
(stores into what ``d`` or ``x`` holds, kept when the value may be a function).

The base of :class:`~kgraph.codegraph.python_bindings.BindingHandlers`, apart from it: a
store binds no name in the scope it is written in but adds to what an object holds, which
the resolver reads back through the object (:mod:`~kgraph.codegraph.elements`,
:mod:`~kgraph.codegraph.hierarchy`).
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from kgraph.codegraph.python_nodes import (
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_KEY,
    F_OBJECT,
    F_SUBSCRIPT,
    F_VALUE,
    node_text,
)
from kgraph.codegraph.python_refs import RefBuilder, constant
from kgraph.codegraph.refs import ITERATE, split_call
from kgraph.codegraph.summary import (
    UNKNOWN,
    Assigned,
    Binding,
    Defined,
    Scope,
    ScopedBinding,
    Store,
)

STORE_METHODS: Final = frozenset({"append", "add", "insert", "extend", "update", "setdefault"})


class StoreHandlers:
    """The store handlers of :class:`~kgraph.codegraph.parse_python._PythonSummariser`
    (the base of its handler classes)."""

    scopes: dict[str, Scope]
    refs: RefBuilder

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


def _head(ref: str) -> str:
    """The first name of a ref (``d['k'].x`` -> ``d``)."""
    return ref.split(".", 1)[0].split("[", 1)[0].split("(", 1)[0]
