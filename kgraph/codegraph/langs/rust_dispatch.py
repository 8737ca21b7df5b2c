"""Calls through a Rust trait, and the methods they run: read from the graph when a query
asks, as :mod:`kgraph.codegraph.dispatch` reads overrides.

A call on ``&dyn Trait``, ``impl Trait`` or a value of a type parameter bounded by
``Trait`` is stored as a call of ``Trait.m`` (resolution ``interface``,
:mod:`.rust_modules`). It may run the ``m`` of every type that implements the trait: Rust
writes those out (``impl Trait for T``: an ``implements`` edge, made by the file of the
block, and a subtrait's ``extends`` edge to its supertrait). The method ``T.m`` is in the
``impl`` block's file, which need not be ``T``'s: it is found by qualified name, in that
file or in ``T``'s folder. Plain SQL on the DB-API connection
(:mod:`kgraph.codegraph.access`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from kgraph.codegraph.access import fetch_in
from kgraph.codegraph.langs.go_dispatch import Dispatched
from kgraph.db.reader import ReadConnection

RUST_SUFFIX = ".rs"
_METHODS_NAMED_SQL = "SELECT id FROM graph_entities WHERE type = 'method' AND name IN ({})"
_INTERFACES_SQL = "SELECT id FROM graph_entities WHERE id IN ({}) AND type = 'interface'"
_BELOW_SQL = (
    "SELECT to_entity, from_entity, file_path FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type IN ('extends', 'implements')"
)
_QUALIFIED_SQL = "SELECT id FROM graph_entities WHERE qualified_name IN ({}) AND type = 'method'"
_CALLS_SQL = (
    "SELECT from_entity, to_entity, line_number, confidence FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type = 'calls' AND resolution = 'interface'"
)

Implementer = tuple[str, str]  # (type id, the file of its impl block)


def is_rust(entity_id: str) -> bool:
    return entity_id.partition("::")[0].endswith(RUST_SUFFIX)


def _owner(method_id: str) -> str:
    return method_id.rpartition(".")[0]


def implementers(conn: ReadConnection, traits: set[str]) -> dict[str, set[Implementer]]:
    """Each trait's implementing types, through its subtraits too, with the file of each
    ``impl`` block (read downward, a level at a time, by the callers index)."""
    direct: dict[str, set[Implementer]] = {}
    frontier = set(traits)
    while frontier:
        for trait in frontier:
            direct[trait] = set()
        found: set[str] = set()
        for trait, sub, path in fetch_in(conn, _BELOW_SQL, frontier):
            direct[str(trait)].add((str(sub), str(path)))
            found.add(str(sub))
        frontier = found - set(direct)
    result: dict[str, set[Implementer]] = {}
    for trait in traits:
        seen: set[Implementer] = set()
        stack = list(direct.get(trait, ()))
        while stack:
            item = stack.pop()
            if item not in seen:
                seen.add(item)
                stack.extend(direct.get(item[0], ()))
        result[trait] = seen
    return result


def _runs(method: str, implementer: Implementer) -> bool:
    """Whether ``method`` (``path::T.m``) is ``T``'s: in its impl block's file, or its
    type's folder."""
    path, _, qname = method.partition("::")
    type_path, _, type_qname = implementer[0].partition("::")
    return qname.rpartition(".")[0] == type_qname and (
        path == implementer[1] or posixpath.dirname(path) == posixpath.dirname(type_path)
    )


def calls_into(conn: ReadConnection, methods: Iterable[str]) -> list[Dispatched]:
    """The calls through a trait that may run each of ``methods`` (Rust ``T.m`` ids)."""
    methods = [m for m in methods if is_rust(m)]
    if not methods:
        return []
    named = [
        str(row[0])
        for row in fetch_in(conn, _METHODS_NAMED_SQL, {m.rpartition(".")[2] for m in methods})
    ]
    traits = {str(row[0]) for row in fetch_in(conn, _INTERFACES_SQL, {_owner(m) for m in named})}
    written = [m for m in named if _owner(m) in traits and m not in methods]
    below = implementers(conn, {_owner(m) for m in written})
    runs: dict[str, list[str]] = {}
    for declared in written:
        for method in methods:
            if method.rpartition(".")[2] == declared.rpartition(".")[2] and any(
                _runs(method, item) for item in below[_owner(declared)]
            ):
                runs.setdefault(declared, []).append(method)
    return [
        Dispatched(str(caller), str(target), method, line, float(confidence))
        for caller, target, line, confidence in fetch_in(conn, _CALLS_SQL, runs)
        for method in runs[str(target)]
    ]


def calls_from(
    conn: ReadConnection, calls: Iterable[tuple[str, str, int | None, float]]
) -> list[Dispatched]:
    """The methods calls of Rust traits' methods may run: for each of ``calls`` (caller,
    target ``Trait.m``, line, confidence), the ``T.m`` of every type implementing it."""
    calls = [c for c in calls if is_rust(c[1])]
    if not calls:
        return []
    traits = {str(row[0]) for row in fetch_in(conn, _INTERFACES_SQL, {_owner(c[1]) for c in calls})}
    calls = [c for c in calls if _owner(c[1]) in traits]
    if not calls:
        return []
    below = implementers(conn, {_owner(c[1]) for c in calls})
    wanted = {
        f"{item[0].partition('::')[2]}.{target.rpartition('.')[2]}"
        for _caller, target, _line, _conf in calls
        for item in below[_owner(target)]
    }
    candidates = [str(row[0]) for row in fetch_in(conn, _QUALIFIED_SQL, wanted)]
    return [
        Dispatched(caller, target, method, line, confidence)
        for caller, target, line, confidence in calls
        for method in sorted(
            m
            for m in candidates
            if m.rpartition(".")[2] == target.rpartition(".")[2]
            and any(_runs(m, item) for item in below[_owner(target)])
        )
    ]
