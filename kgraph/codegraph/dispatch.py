"""Calls that run an override: ``self.m()`` written in a method of class ``S`` runs ``C.m``
when ``self`` is an instance of a subclass ``C`` of ``S`` that defines its own ``m`` (a
template method: ``Base.__init__`` calls ``self.setup()``, and a ``Child`` overrides
``setup``). ``this.m()`` in TypeScript and JavaScript is the same.

The stored edge goes where ``S``'s MRO finds ``m`` (resolution ``self``): a file is resolved
on its own, and which subclasses other files define is not part of it, so a re-parse stays
as incremental as before. The queries add the overrides when they read, from the class
hierarchy the ``extends`` edges hold: what calls ``C.m`` includes the ``self.m()`` calls
written in ``C``'s ancestors (:func:`calls_into`), and what a method calls includes the
overrides below its class (:func:`calls_from`). Only repository classes count: an external
base's own code is not in the graph.

A call in a function or lambda nested in a method counts as the method's (``self`` there
is the method's); ``super().m()`` (resolution ``super-mro``) names its target exactly.

A Go call through an interface (resolution ``interface``) is read the same way: the stored
edge names the interface's method, and the methods of the types implementing it are
added here as overrides of it (:mod:`.langs.go_dispatch`). A Java call of an instance
method (resolution ``virtual``) reaches the overrides below the receiver's class, through
``extends`` and ``implements`` alike, whoever the caller is (:mod:`.langs.java_dispatch`);
a Rust call through a trait (resolution ``interface``), the methods of the types that
implement it (:mod:`.langs.rust_dispatch`).

Plain SQL on a DB-API connection (kgraph.db.reader), as the queries that call it run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kgraph.codegraph.access import fetch_in
from kgraph.codegraph.langs import go_dispatch, java_dispatch, rust_dispatch
from kgraph.db.reader import ReadConnection

# A constructor is reached through its class (``Child()`` calls ``Child.__init__``), not
# through ``self``; and every class has one, so looking for them would read the whole
# hierarchy below every class.
_CONSTRUCTORS = frozenset({"__init__", "__new__"})
# An override is a possible target, not a certain one: the receiver may be any subclass.
CONF_OVERRIDE = 0.8
OVERRIDE = "override"
# The resolutions of the stored edges whose call may run another method: ``self.m()``
# (an override), and a Go call through an interface (an implementation).
DISPATCHED = frozenset({"self", "interface", "virtual"})


class OverrideCall(NamedTuple):
    """``caller`` calls ``self.m()``; its stored edge names ``written`` (where the caller's
    class finds ``m``); for an instance of a subclass, ``override`` runs instead."""

    caller: str
    written: str
    override: str
    line: int | None
    confidence: float


def _split(entity_id: str) -> tuple[str, str]:
    """(the id of the scope ``entity_id`` is defined in, its name): ``path::C.m`` ->
    (``path::C``, ``m``); the scope is "" for a module-level name or a file."""
    path, _, qname = entity_id.partition("::")
    scope, dot, name = qname.rpartition(".")
    return (f"{path}::{scope}" if dot else "", name)


_CHILDREN_SQL = (
    "SELECT to_entity, from_entity FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type = 'extends'"
)
# The methods named like one of the given names, where more than one method has that name
# (an override needs another method of its name; most names, tests' above all, are unique).
_METHODS_NAMED_SQL = (
    "SELECT id FROM graph_entities WHERE type = 'method' AND name IN ("
    "SELECT name FROM graph_entities WHERE name IN ({}) AND type = 'method' "
    "GROUP BY name HAVING COUNT(*) > 1)"
)
_SELF_CALLS_SQL = (
    "SELECT from_entity, to_entity, line_number, confidence FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type = 'calls' AND resolution = 'self'"
)
_CLASSES_SQL = "SELECT id FROM graph_entities WHERE id IN ({}) AND type = 'class'"
_ENTITIES_SQL = "SELECT id FROM graph_entities WHERE id IN ({})"


def descendants(conn: ReadConnection, classes: Iterable[str]) -> dict[str, set[str]]:
    """Each class's repository subclasses, transitively (``extends`` edges downward, by
    the callers index: one read a level of the hierarchy)."""
    classes = set(classes)
    children: dict[str, set[str]] = {}
    frontier = set(classes)
    while frontier:
        for cls in frontier:
            children[cls] = set()
        found = set()
        for base, sub in fetch_in(conn, _CHILDREN_SQL, frontier):
            children[base].add(sub)
            found.add(sub)
        frontier = found - set(children)
    return {cls: _closure(cls, children) for cls in classes}


def _closure(start: str, links: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(links.get(start, ()))
    while stack:
        cls = stack.pop()
        if cls not in seen and cls != start:
            seen.add(cls)
            stack.extend(links.get(cls, ()))
    return seen


def _enclosing_classes(conn: ReadConnection, ids: Iterable[str]) -> dict[str, str]:
    """Each id's nearest enclosing class ("" for none): a method's class, and the method's
    for a function or lambda nested in it (``self`` there is the method's)."""
    chains: dict[str, list[str]] = {}
    for entity_id in ids:
        path, _, qname = entity_id.partition("::")
        parts = qname.split(".")
        chains[entity_id] = [
            f"{path}::{'.'.join(parts[:end])}" for end in range(len(parts) - 1, 0, -1)
        ]
    found = {str(row[0]) for row in fetch_in(conn, _CLASSES_SQL, set().union(*chains.values()))}
    return {i: next((c for c in chain if c in found), "") for i, chain in chains.items()}


def calls_into(conn: ReadConnection, methods: Iterable[str]) -> list[OverrideCall]:
    """The ``self.m()`` calls that run ``C.m`` for an instance of ``C``, for each of
    ``methods`` (ids ``path::C.m``): those written in a method of a proper ancestor of
    ``C``. Everything is read downward (a subclass's ``extends`` edge is found by its base's
    id; upward only by scanning the subclass's file): the methods named ``m`` whose class
    is above ``C`` (the ``name`` index), then the ``self.m()`` calls into them (the
    callers index), kept where the calling class is above ``C`` too. For a Go method, the
    calls through an interface it implements (:mod:`.langs.go_dispatch`); for a Java
    method, the virtual calls of the methods it overrides (:mod:`.langs.java_dispatch`)."""
    methods = list(methods)
    by_name: dict[str, list[str]] = {}  # m -> the C.m
    for method in methods:  # a method's id always has a class: path::C.m
        if not java_dispatch.is_java(method) and not rust_dispatch.is_rust(method):
            by_name.setdefault(method.rpartition(".")[2], []).append(method)
    for name in _CONSTRUCTORS:
        by_name.pop(name, None)
    named = [(*_split(str(i)), str(i)) for (i,) in fetch_in(conn, _METHODS_NAMED_SQL, by_name)]
    below = descendants(conn, {owner for owner, _name, _written in named})
    owners = {m: _split(m)[0] for name in {n for _o, n, _w in named} for m in by_name[name]}
    overridden: dict[str, list[str]] = {}  # A.m -> the C.m below A
    for owner, name, written in named:
        subclasses = below[owner]
        if subclasses:  # most classes have none
            for method in by_name[name]:
                if owners[method] in subclasses:
                    overridden.setdefault(written, []).append(method)
    calls = fetch_in(conn, _SELF_CALLS_SQL, overridden)
    classes = _enclosing_classes(conn, {str(row[0]) for row in calls})
    below.update(descendants(conn, set(classes.values()) - set(below)))
    return [
        OverrideCall(caller, written, method, line, min(confidence, CONF_OVERRIDE))
        for caller, written, line, confidence in calls
        for method in overridden[written]
        if owners[method] in below[classes[caller]]
    ] + _implementations(
        go_dispatch.calls_into(conn, methods)
        + java_dispatch.calls_into(conn, methods)
        + rust_dispatch.calls_into(conn, methods)
    )


def calls_from(
    conn: ReadConnection, calls: Iterable[tuple[str, str, int | None, float]]
) -> list[OverrideCall]:
    """The overrides ``self.m()`` calls may run: for each of ``calls`` (caller, target,
    line, confidence: edges of resolution ``self``), the ``m`` of every subclass of the
    caller's class that defines one; for a Go interface's method (resolution
    ``interface``), the methods of the types that implement it."""
    calls = list(calls)
    own = [  # Go's embedding is no subclass; Java's and Rust's calls are the receiver's
        c
        for c in calls
        if not (
            go_dispatch.is_go(c[1]) or java_dispatch.is_java(c[1]) or rust_dispatch.is_rust(c[1])
        )
    ]
    classes = _enclosing_classes(conn, {c[0] for c in own})
    owned = [(classes[c[0]], c) for c in own if classes[c[0]]]
    below = descendants(conn, {owner for owner, _c in owned})
    candidates = {
        f"{sub}.{_split(target)[1]}": None
        for owner, (_caller, target, _line, _conf) in owned
        for sub in below[owner]
    }
    existing = {str(row[0]) for row in fetch_in(conn, _ENTITIES_SQL, candidates)}
    return [
        OverrideCall(caller, target, override, line, min(confidence, CONF_OVERRIDE))
        for owner, (caller, target, line, confidence) in owned
        for sub in sorted(below[owner])
        if (override := f"{sub}.{_split(target)[1]}") in existing and override != target
    ] + _implementations(
        go_dispatch.calls_from(conn, calls)
        + java_dispatch.calls_from(conn, calls)
        + rust_dispatch.calls_from(conn, calls)
    )


def _implementations(calls: list[go_dispatch.Dispatched]) -> list[OverrideCall]:
    """Go calls through an interface, and Java virtual calls, as override calls: the
    implementation (or override) runs in place of the method the call names."""
    return [
        OverrideCall(c.caller, c.written, c.runs, c.line, min(c.confidence, CONF_OVERRIDE))
        for c in calls
    ]
