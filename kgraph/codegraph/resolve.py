"""Static evaluation of names and refs over the summaries of all files.

The :class:`Resolver` evaluates refs to values (see :mod:`kgraph.codegraph.values`), caching
its results along with what each one read (its base, :mod:`.summary_reader`, reads the
summaries). A ref's head is a name, looked up by LEGB (:mod:`.scoping`) and evaluated
from its bindings; a ref's operations are then applied in order: attributes (modules,
classes along the MRO: :mod:`.hierarchy`, :mod:`.imports`), calls (what a function
returns, with the call's arguments for its parameters: :mod:`.flow`), subscripts and
iteration (literals, generators, the iteration protocol: :mod:`.elements`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from kgraph.codegraph import elements, flow
from kgraph.codegraph.hierarchy import as_receiver, attribute
from kgraph.codegraph.imports import from_import, import_module
from kgraph.codegraph.pytest_fixtures import binds_fixtures, fixture_argument
from kgraph.codegraph.refs import ITERATE, Part, call_args, op_key, split_ref
from kgraph.codegraph.scoping import line_marker, lookup, lookup_from, outer_scope
from kgraph.codegraph.script_resolve import is_script, this_value
from kgraph.codegraph.summary import (
    Annotated,
    Assigned,
    Binding,
    Defined,
    ImportedModule,
    ImportedName,
    Parameter,
    scope_kind,
)
from kgraph.codegraph.summary_reader import SummaryReader
from kgraph.codegraph.values import (
    CONF_IMPORT,
    CONF_INFERRED,
    CONF_LOCAL,
    CONF_SELF,
    PY_BUILTIN_TYPES,
    Result,
    Value,
    unique,
    weaken,
)

# Heads whose meaning depends on the function they are used in (``super()`` finds its
# class from there; TS/JS ``this``).
_SCOPED_HEADS: Final = frozenset({"super", "this"})
# The languages where they are keywords (in Go ``this`` may name a receiver; in Rust
# ``super`` is the parent module).
_THIS_LANGUAGES: Final = frozenset({"typescript", "tsx", "javascript", "java"})
_SELF_TYPES: Final = frozenset({"typing.Self", "typing_extensions.Self"})
# Annotations that say nothing of the value: no instance (``x: Any`` made every ``x.f()``
# an edge to a method ``typing.Any.f`` that does not exist: 2,905 in sqlalchemy).
_ANY_TYPES: Final = frozenset({"typing.Any", "typing_extensions.Any"})


class Resolver(SummaryReader):
    """Evaluates names and refs against the summaries its base reads (see
    :class:`~kgraph.codegraph.summary_reader.SummaryReader` for what a file's resolution
    records as read, and for the constructor's arguments)."""

    # -- bindings -----------------------------------------------------------------------
    def eval_bindings(self, path: str, scope_name: str, bindings: list[Binding]) -> list[Result]:
        results: list[Result] = []
        for binding in bindings:
            results.extend(self.eval_binding(path, scope_name, binding))
        return unique(results)

    def eval_binding(self, path: str, scope_name: str, binding: Binding) -> list[Result]:
        # Every name looked up comes here: the commonest kinds are tested first, and an
        # assignment's cached value is returned without making its computation.
        if isinstance(binding, Assigned):
            ref, line = binding.ref, binding.line
            key = ("val", path, scope_name, ref, line)
            hit = self._cache.get(key)
            if hit is not None:
                if hit[1]:
                    self._reads[-1].update(hit[1])
                found: list[Result] = hit[0]
                return found
            return self.cached(key, lambda: self.eval_ref(path, scope_name, ref, -line))
        if isinstance(binding, Defined):
            return [(("def", path, binding.qname), CONF_LOCAL, "local")]
        if isinstance(binding, ImportedName):
            return from_import(self, path, binding.module, binding.level, binding.name)
        if isinstance(binding, Parameter):
            return self._parameter(path, scope_name, binding.position)
        if isinstance(binding, ImportedModule):
            return weaken(import_module(self, path, binding.dotted), CONF_IMPORT, "import")
        if isinstance(binding, Annotated):
            ann = binding.ref
            return self.cached(
                ("ann", path, scope_name, ann),
                lambda: self._instances(
                    self.eval_ref(path, scope_name, ann, None), path, scope_name
                ),
            )
        return []

    def _parameter(self, path: str, scope_name: str, position: int) -> list[Result]:
        """A method's self/cls: its class; a parameter pytest binds, its fixture's value
        (:mod:`.pytest_fixtures`); any other parameter: what callers pass, as a placeholder
        followed only where the value is called, subscripted or iterated."""
        scope = self.scope(path, scope_name)
        if scope is None:
            return []
        if position == 0 and scope.get("self_name"):
            summary = self.summary(path)
            parent = scope["parent"] or ""
            if (
                summary is not None
                and summary["scopes"].get(parent, {"kind": ""})["kind"] == "class"
            ):
                kind = "def" if scope.get("method") == "class" else "inst"
                return [((kind, path, parent), CONF_SELF, "self")]
        params = scope.get("params")
        if not params or position >= len(params):
            return []
        kind = "pack" if params[position].startswith("*") else "param"
        if kind == "param" and binds_fixtures(self, path, scope_name):  # pytest passes it
            found = fixture_argument(self, path, scope_name, params[position].lstrip("/="))
            if found is not None:
                return found
        return [((kind, path, scope_name, position, ()), CONF_INFERRED, "argument")]

    def _instances(self, results: list[Result], path: str, scope_name: str) -> list[Result]:
        """Instances of the classes an annotation written in ``scope_name`` names; ``Self``:
        of the class the annotation is in; ``Any``: none."""
        out: list[Result] = []
        for value, conf, method in results:
            if value[0] == "ext" and value[1] in _SELF_TYPES:
                found = self.enclosing_class(path, scope_name)
                if found is not None:
                    out.append((("inst", path, found[0]), min(conf, CONF_INFERRED), "inferred"))
            elif value[0] == "def" and self.def_kind(value) in ("class", "interface", "enum"):
                out.append((("inst", value[1], value[2]), min(conf, CONF_INFERRED), "inferred"))
            elif value[0] == "builtin" and value[1] in PY_BUILTIN_TYPES:
                out.append((("lit", f"<{value[1]}>"), conf, method))
            elif value[0] == "ext" and value[1] not in _ANY_TYPES:
                out.append((("extinst", value[1]), conf, method))
        return out

    # -- refs ---------------------------------------------------------------------------
    def eval_ref(self, path: str, scope_name: str, ref: str, line: int | None) -> list[Result]:
        """The values ``ref`` may denote in ``scope_name`` at ``line``, cached by what its
        first name can mean there: the bindings visible at ``line``; in a function that does
        not bind it, the enclosing scopes (shared by sibling functions: a third of all refs);
        for an unrebound ``self``/``cls``, the method's class (shared by its methods). Refs
        with arguments or literals of their own scope (``(#N)``, ``<#N>``, ``@name``) are
        not shared.

        The resolver's hottest path: the key is made first, the computation only on a miss
        (about half of all calls hit)."""
        head = split_ref(ref)[0].name
        summary = self.summary(path, scope_name or head)
        if summary is None:
            return []
        scopes = summary["scopes"]
        scope = scopes.get(scope_name)
        bindings = scope["names"].get(head) if scope is not None else None
        key: tuple[Any, ...] | None = None
        if (
            scope is not None
            and scope["kind"] == "function"
            and head not in _SCOPED_HEADS
            and "#" not in ref
            and head[:1] not in ("<", "@")
        ):
            if not bindings:
                if not (head in scope.get("globals", ()) or head in scope.get("nonlocals", ())):
                    key = ("outer", path, outer_scope(scopes, scope), ref)
            elif (
                scope.get("self_name") == head
                and scope_kind(summary, scope["parent"] or "") == "class"
                and all(isinstance(b, Parameter) and b.position == 0 for b in bindings)
            ):
                cls = scope["parent"] or ""
                key = ("self", path, cls, "def" if scope.get("method") == "class" else "inst", ref)
        if key is None:
            key = ("ref", path, scope_name, ref, line_marker(ref, line, bindings))
        hit = self._cache.get(key)
        if hit is not None:  # cached()'s hit path, inline: most refs are met more than once
            if hit[1]:
                self._reads[-1].update(hit[1])
            values: list[Result] = hit[0]
            return values
        compute: Callable[[], list[Result]]
        if key[0] == "outer":
            compute = partial(self._eval_ref, path, key[2], ref, None, True)
        elif key[0] == "self":
            compute = partial(self._eval_self_ref, path, key[2], key[3], ref)
        else:
            compute = partial(self._eval_ref, path, scope_name, ref, line)
        return self.cached(key, compute)

    def _eval_ref(
        self, path: str, scope_name: str, ref: str, line: int | None, outer: bool = False
    ) -> list[Result]:
        """Evaluate ``ref`` (``outer``: its head is looked up from the enclosing scope
        ``scope_name`` on, as for a name the function using it does not bind)."""
        parts = split_ref(ref)
        head = parts[0].name
        if head == "?" or not head:
            return []
        values: list[Result]
        first = head[0]
        if first == "@":  # `:` stands for a dot: a TS/JS object's member `@api:load`
            name = head[1:].replace(":", ".")
            qname = f"{scope_name}.{name}" if scope_name else name
            values = [(("def", path, qname), CONF_LOCAL, "local")]
        elif first == "<" and head[1:2] == "#":
            self.scope(path, scope_name)
            values = [(("cont", path, scope_name, int(head[2:-1])), CONF_LOCAL, "literal")]
        elif first == "<":
            values = [(("lit", head), CONF_LOCAL, "literal")]
        elif head in _SCOPED_HEADS and self._lang(path) in _THIS_LANGUAGES:
            values = self._this(path, scope_name, head == "super")
        elif outer:
            summary = self.summary(path, head)
            values = (
                []
                if summary is None
                else lookup_from(self, path, summary, scope_name, head, None, False)
            )
        else:
            values = lookup(self, path, scope_name, head, line)
        return self.eval_chain(path, scope_name, parts, values, line)

    def _eval_self_ref(self, path: str, cls: str, kind: str, ref: str) -> list[Result]:
        """Evaluate ``ref`` whose head is the ``self`` (``kind`` "inst") or ``cls`` ("def")
        parameter of a method of class ``cls``."""
        parts = split_ref(ref)
        self.summary(path, parts[0].name)  # the read looking the parameter up would make
        values: list[Result] = [((kind, path, cls), CONF_SELF, "self")]
        return self.eval_chain(path, cls, parts, values, None)

    def eval_chain(
        self,
        path: str,
        scope_name: str,
        parts: tuple[Part, ...],
        values: list[Result],
        line: int | None,
    ) -> list[Result]:
        """Apply the operations and attributes of a ref's ``parts`` to its head's ``values``."""
        via_class = False  # the values came from an attribute of a class (unbound methods)
        for index, part in enumerate(parts):
            # Instances (and classes, for a classmethod) whose method the part's first op calls.
            receivers: list[Result] = []
            if index:
                if part.name == "?" or not values:
                    return []
                if part.ops:  # a method called through its class is unbound
                    via_class = all(v[0] == "def" for v, _c, _m in values)
                    receivers = [r for r in values if r[0][0] in ("inst", "def")]
                values = self.flat(values, lambda v, n=part.name: attribute(self, v, n))  # type: ignore[misc]
                if any(r[0][0] == "def" for r in receivers) and not all(
                    self._classmethod(v) for v, _, _ in values
                ):  # a class gives back an instance of itself only through a classmethod
                    receivers = [r for r in receivers if r[0][0] == "inst"]
            for op in part.ops:
                if not values and not op.startswith("(#"):  # a decorator: see flow.apply_call
                    return values
                values = self.apply(values, op, path, scope_name, line, via_class)
                if receivers and op[0] == "(":
                    values = as_receiver(self, values, receivers)
                receivers = []
                via_class = False
        return values

    def apply(
        self,
        values: list[Result],
        op: str,
        path: str,
        scope_name: str,
        line: int | None,
        via_class: bool = False,
    ) -> list[Result]:
        """One operation of a ref (see :mod:`.refs`) applied to every value. A parameter's
        value is only looked for when it is called: a subscript or iteration of it is
        deferred until then (:func:`.flow.force`)."""
        if op[0] == "(":
            values = flow.force(self, values)
            if op == "(!)":
                return self.flat(values, elements.raised)
            return flow.apply_call(
                self, values, (path, scope_name, call_args(op), line), not via_class
            )
        if op == ITERATE:
            return self.flat(values, lambda v: elements.iterate(self, v))
        if op.endswith(":]"):
            start = int(op[1:-2])
            return self.flat(values, lambda v: elements.sliced(self, v, start))
        key = op_key(op)
        return self.flat(values, lambda v: elements.subscript(self, v, key))

    def attr(self, value: Value, name: str) -> list[Result]:
        """Attribute ``name`` of ``value`` (see :func:`.hierarchy.attribute`)."""
        return attribute(self, value, name)

    def flat(self, values: list[Result], step: Callable[[Value], list[Result]]) -> list[Result]:
        out: list[Result] = []
        for value, conf, method in values:
            for result in step(value):  # weaken(), inline: a call and a list less per value
                out.append(result if result[1] <= conf else (result[0], conf, method))
        return unique(out)

    def _this(self, path: str, scope_name: str, is_super: bool) -> list[Result]:
        if not is_super and is_script(path):  # an object's method, a bound function...
            received = this_value(self, path, scope_name)
            if received is not None:
                return received
        found = self.enclosing_class(path, scope_name)
        if found is None:
            return []
        cls, _instance = found
        if is_super:
            return [(("super", path, cls, True), CONF_SELF, "super-mro")]
        return [(("inst", path, cls), CONF_SELF, "self")]
