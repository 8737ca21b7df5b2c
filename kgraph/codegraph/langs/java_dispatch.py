"""Virtual calls in Java, and the overrides they may run: read from the graph when a query
asks, as :mod:`kgraph.codegraph.dispatch` reads Python's ``self.m()`` overrides.

A call of an instance method ``x.m()`` (``this.m()`` too) is stored as a call of the
``m`` its receiver's declared class finds (resolution ``virtual``,
:mod:`.java_packages`). At run time the receiver may be an instance of any class below
that one, so the call may run the ``m`` of each of them that declares its own: the classes
that extend it or implement it, transitively (``extends`` and ``implements`` edges, which
Java writes out). Which classes those are depends on other files, so it is not part of any
file's resolution (a re-parse stays as incremental as before) but found here: what calls
``C.m`` includes the virtual calls of the ``m`` of every class or interface above ``C``
(:func:`calls_into`); what a call of ``A.m`` may run, the ``m`` below ``A``
(:func:`calls_from`). Plain SQL on the DB-API connection (:mod:`kgraph.codegraph.access`).
"""

from __future__ import annotations

from collections.abc import Iterable

from kgraph.codegraph.access import fetch_in
from kgraph.codegraph.langs.go_dispatch import Dispatched
from kgraph.db.reader import ReadConnection

JAVA_SUFFIX = ".java"
_METHODS_NAMED_SQL = "SELECT id FROM graph_entities WHERE type = 'method' AND name IN ({})"
_BELOW_SQL = (
    "SELECT to_entity, from_entity FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type IN ('extends', 'implements')"
)
_ENTITIES_SQL = "SELECT id FROM graph_entities WHERE id IN ({})"
_CALLS_SQL = (
    "SELECT from_entity, to_entity, line_number, confidence FROM graph_relationships "
    "WHERE to_entity IN ({}) AND type = 'calls' AND resolution = 'virtual'"
)


def is_java(entity_id: str) -> bool:
    return entity_id.partition("::")[0].endswith(JAVA_SUFFIX)


def _owner(method_id: str) -> str:
    return method_id.rpartition(".")[0]


def below(conn: ReadConnection, types: Iterable[str]) -> dict[str, set[str]]:
    """Each type's repository subtypes, transitively (read downward, a level at a time, by
    the callers index)."""
    children: dict[str, set[str]] = {}
    frontier = set(types)
    while frontier:
        for entity in frontier:
            children[entity] = set()
        found: set[str] = set()
        for base, sub in fetch_in(conn, _BELOW_SQL, frontier):
            children[str(base)].add(str(sub))
            found.add(str(sub))
        frontier = found - set(children)
    result: dict[str, set[str]] = {}
    for start in types:
        seen: set[str] = set()
        stack = list(children.get(start, ()))
        while stack:
            entity = stack.pop()
            if entity not in seen and entity != start:
                seen.add(entity)
                stack.extend(children.get(entity, ()))
        result[start] = seen
    return result


def calls_into(conn: ReadConnection, methods: Iterable[str]) -> list[Dispatched]:
    """The virtual calls that may run each of ``methods`` (Java ``C.m`` ids): the calls
    of the ``m`` of a class or interface ``C`` is below."""
    methods = [m for m in methods if is_java(m) and not m.endswith(".constructor")]
    if not methods:
        return []
    names = {m.rpartition(".")[2] for m in methods}
    named = [str(row[0]) for row in fetch_in(conn, _METHODS_NAMED_SQL, names)]
    written = [m for m in named if is_java(m) and m not in methods]
    under = below(conn, {_owner(m) for m in written})
    runs: dict[str, list[str]] = {}
    for above in written:
        subtypes = under[_owner(above)]
        for method in methods:
            if method.rpartition(".")[2] == above.rpartition(".")[2] and _owner(method) in subtypes:
                runs.setdefault(above, []).append(method)
    return [
        Dispatched(str(caller), str(target), method, line, float(confidence))
        for caller, target, line, confidence in fetch_in(conn, _CALLS_SQL, runs)
        for method in runs[str(target)]
    ]


def calls_from(
    conn: ReadConnection, calls: Iterable[tuple[str, str, int | None, float]]
) -> list[Dispatched]:
    """The overrides virtual calls may run: for each of ``calls`` (caller, target ``A.m``,
    line, confidence), the ``m`` of every class below ``A`` that declares one."""
    calls = [c for c in calls if is_java(c[1])]
    if not calls:
        return []
    under = below(conn, {_owner(c[1]) for c in calls})
    candidates = {
        f"{sub}.{target.rpartition('.')[2]}"
        for _caller, target, _line, _conf in calls
        for sub in under[_owner(target)]
    }
    existing = {str(row[0]) for row in fetch_in(conn, _ENTITIES_SQL, candidates)}
    return [
        Dispatched(caller, target, override, line, confidence)
        for caller, target, line, confidence in calls
        for sub in sorted(under[_owner(target)])
        if (override := f"{sub}.{target.rpartition('.')[2]}") in existing
    ]
