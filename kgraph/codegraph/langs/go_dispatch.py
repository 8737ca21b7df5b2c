"""Calls through a Go interface, and the methods they run: read from the graph when a query
asks, as :mod:`kgraph.codegraph.dispatch` reads overrides.

A Go type implements an interface implicitly: by having every method the interface
declares. A call ``x.M()`` on a value of interface type ``I`` is stored as a call of
``I.M`` (resolution ``interface``, :mod:`.go_packages`); the methods it may run are the
``T.M`` of every type ``T`` of the repository whose method set covers ``I``'s. Which types
those are depends on every package, so it is not part of any file's resolution (a re-parse
stays as incremental as before) but found here, from the entities: the interfaces'
methods by name (the ``name`` index), each type's methods by qualified name in its own
folder (the ``qualified_name`` index).

Method sets are taken as Go writes them, cheaply: a type's own methods (pointer and value
receivers alike) and those of the types it embeds, one level down; an interface's
methods and those of the repository's interfaces it embeds. An embedded external
interface (``io.Reader``) adds methods this graph cannot list: it is not checked. Plain
SQL on the DB-API connection (:mod:`kgraph.codegraph.access`), as the other queries.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import NamedTuple

from kgraph.codegraph.access import fetch_in
from kgraph.db.reader import ReadConnection

GO_SUFFIX = ".go"
_METHODS_NAMED_SQL = "SELECT id FROM graph_entities WHERE type = 'method' AND name IN ({})"
_INTERFACES_SQL = "SELECT id FROM graph_entities WHERE id IN ({}) AND type = 'interface'"
_FILE_METHODS_SQL = (
    "SELECT file_path, qualified_name FROM graph_entities "
    "WHERE file_path IN ({}) AND type = 'method'"
)
_QUALIFIED_SQL = (
    "SELECT file_path, qualified_name FROM graph_entities "
    "WHERE qualified_name IN ({}) AND type = 'method'"
)
_EMBEDDED_SQL = (
    "SELECT from_entity, to_entity FROM graph_relationships "
    "WHERE file_path IN ({}) AND type = 'extends'"
)
_CALLS_SQL = (
    "SELECT from_entity, to_entity, line_number, confidence FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type = 'calls' AND resolution != 'name-only'"
)


class Dispatched(NamedTuple):
    """``caller`` calls ``written`` (an interface's method) at ``line``; ``runs`` is a
    method of a type that implements the interface."""

    caller: str
    written: str
    runs: str
    line: int | None
    confidence: float


def is_go(entity_id: str) -> bool:
    return entity_id.partition("::")[0].endswith(GO_SUFFIX)


def _owner(method_id: str) -> str:
    """``path::T.M`` -> ``path::T``."""
    return method_id.rpartition(".")[0]


class _MethodSets:
    """The method sets a query needs, each read once."""

    def __init__(self, conn: ReadConnection) -> None:
        self.conn = conn
        self._embedded: dict[str, list[str]] = {}  # type/interface id -> embedded ids
        self._interface: dict[str, set[str]] = {}

    def interfaces(self, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` are interfaces."""
        return {str(row[0]) for row in fetch_in(self.conn, _INTERFACES_SQL, ids)}

    def embedded(self, ids: set[str]) -> dict[str, list[str]]:
        """What each of ``ids`` embeds (its ``extends`` edges, read by file)."""
        wanted = ids - set(self._embedded)
        if wanted:
            for entity in wanted:
                self._embedded[entity] = []
            files = {entity.partition("::")[0] for entity in wanted}
            for source, target in fetch_in(self.conn, _EMBEDDED_SQL, files):
                if source in wanted:
                    self._embedded[str(source)].append(str(target))
        return {entity: self._embedded[entity] for entity in ids}

    def interface_methods(self, interfaces: set[str]) -> dict[str, set[str]]:
        """The method names of each interface, with those of the repository's interfaces
        it embeds."""
        wanted = interfaces - set(self._interface)
        if wanted:
            files = {entity.partition("::")[0] for entity in wanted}
            own: dict[str, set[str]] = {entity: set() for entity in wanted}
            for path, qname in fetch_in(self.conn, _FILE_METHODS_SQL, files):
                owner = f"{path}::{str(qname).rpartition('.')[0]}"
                if owner in own:
                    own[owner].add(str(qname).rpartition(".")[2])
            embedded = self.embedded(wanted)
            inner = self.interfaces({e for targets in embedded.values() for e in targets})
            inner_methods = self.interface_methods(inner - wanted) if inner - wanted else {}
            for entity in wanted:
                names = set(own[entity])
                for target in embedded[entity]:
                    names |= own.get(target) or inner_methods.get(target) or set()
                self._interface[entity] = names
        return {entity: self._interface[entity] for entity in interfaces}

    def covering(self, types: set[str], names: set[str]) -> set[str]:
        """The ``types`` that have every method of ``names`` (declared in their own
        folder, or promoted from a type they embed)."""
        have = self._has(types, names)
        lacking = {t for t in types if not names <= have[t]}
        if lacking:
            embedded = self.embedded(lacking)
            inner = self._has({e for targets in embedded.values() for e in targets}, names)
            for entity in lacking:
                for target in embedded[entity]:
                    have[entity] |= inner.get(target, set())
        return {t for t in types if names <= have[t]}

    def _has(self, types: set[str], names: set[str]) -> dict[str, set[str]]:
        """Which of ``names`` each type declares a method of, in its own folder."""
        qualified: dict[str, list[str]] = {}
        for entity in types:
            qname = entity.partition("::")[2]
            for name in names:
                qualified.setdefault(f"{qname}.{name}", []).append(entity)
        have: dict[str, set[str]] = {entity: set() for entity in types}
        for path, qname in fetch_in(self.conn, _QUALIFIED_SQL, qualified):
            folder = posixpath.dirname(str(path))
            for entity in qualified.get(str(qname), ()):
                if posixpath.dirname(entity.partition("::")[0]) == folder:
                    have[entity].add(str(qname).rpartition(".")[2])
        return have


def _implementations(
    sets: _MethodSets, interface_methods: set[str], candidates: Iterable[str]
) -> dict[str, list[str]]:
    """For each interface method ``I.M``, the ``candidates`` ``T.M`` (methods of Go types
    that are not interfaces) whose type implements ``I``."""
    interfaces = {_owner(m) for m in interface_methods}
    needs = sets.interface_methods(interfaces)
    by_name: dict[str, list[str]] = {}
    for method in candidates:
        by_name.setdefault(method.rpartition(".")[2], []).append(method)
    found: dict[str, list[str]] = {}
    for written in sorted(interface_methods):
        methods = by_name.get(written.rpartition(".")[2], [])
        owners = {_owner(m) for m in methods}
        covering = sets.covering(owners, needs[_owner(written)] | {written.rpartition(".")[2]})
        found[written] = [m for m in methods if _owner(m) in covering]
    return found


def calls_into(conn: ReadConnection, methods: Iterable[str]) -> list[Dispatched]:
    """The calls through an interface that may run each of ``methods`` (Go ``T.M`` ids):
    the calls of ``I.M`` for every interface ``I`` with a method ``M`` that ``T``
    implements."""
    methods = [m for m in methods if is_go(m)]
    if not methods:
        return []
    sets = _MethodSets(conn)
    named = [
        str(row[0])
        for row in fetch_in(conn, _METHODS_NAMED_SQL, {m.rpartition(".")[2] for m in methods})
    ]
    interfaces = sets.interfaces({_owner(m) for m in named if is_go(m)})
    written = {m for m in named if _owner(m) in interfaces}
    concrete = [m for m in methods if _owner(m) not in interfaces]
    if not written or not concrete:
        return []
    runs = _implementations(sets, written, concrete)
    return [
        Dispatched(str(caller), str(target), method, line, float(confidence))
        for caller, target, line, confidence in fetch_in(conn, _CALLS_SQL, written)
        for method in runs.get(str(target), ())
    ]


def calls_from(
    conn: ReadConnection, calls: Iterable[tuple[str, str, int | None, float]]
) -> list[Dispatched]:
    """The methods calls of Go interface methods may run: for each of ``calls`` (caller,
    target, line, confidence) whose target is an interface's method ``I.M``, the ``T.M``
    of every type ``T`` of the repository that implements ``I``."""
    calls = [c for c in calls if is_go(c[1])]
    if not calls:
        return []
    sets = _MethodSets(conn)
    interfaces = sets.interfaces({_owner(c[1]) for c in calls})
    written = {c[1] for c in calls if _owner(c[1]) in interfaces}
    if not written:
        return []
    named = [
        str(row[0])
        for row in fetch_in(conn, _METHODS_NAMED_SQL, {m.rpartition(".")[2] for m in written})
    ]
    abstract = sets.interfaces({_owner(m) for m in named if is_go(m)})
    concrete = [m for m in named if is_go(m) and _owner(m) not in abstract]
    runs = _implementations(sets, written, concrete)
    return [
        Dispatched(caller, target, method, line, confidence)
        for caller, target, line, confidence in calls
        for method in runs.get(target, ())
    ]
