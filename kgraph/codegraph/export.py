"""``graph export --format callgraph-json``: the call graph as an adjacency list, in the format
public Python call-graph benchmarks use (PyCG's): ``{"caller": ["callee", ...]}`` with dotted
names relative to a root folder.

Naming: a module is its path below the root in dots (``pkg/mod.py`` -> ``pkg.mod``; a
package's ``__init__.py`` is the package); module-level code is the module's own name; a
function or method is ``module.qualified.name``; builtins are ``<builtin>.name``; external
modules keep their import path (``os.path.join``). Code in a class body belongs to the
enclosing function or module. Name-only candidates are not exported (they are guesses), nor
are instantiations of a class that defines no ``__init__`` (no code of the project runs).
A ``self.m()`` call also reaches the overrides of ``m`` in subclasses (:mod:`.dispatch`).
Every function, method and module under the root is a key, even with no callees.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from kgraph.codegraph.build import BUILTIN_PREFIX, EXTERNAL_PREFIX, UNRESOLVED_PREFIX
from kgraph.codegraph.dispatch import DISPATCHED, OVERRIDE, calls_from
from kgraph.codegraph.filedeps import normalise_path
from kgraph.codegraph.langs import SOURCE_SUFFIXES
from kgraph.codegraph.modules import PY_SUFFIXES, TS_EXTENSIONS, python_module_path
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphRelationship, table_of
from kgraph.db.reader import raw_connection

ENTITIES = table_of(GraphEntity)
EDGES = table_of(GraphRelationship)


def _module(path: str, root: str) -> str:
    relative = path[len(root) + 1 :] if root else path
    if relative.endswith(PY_SUFFIXES):
        return python_module_path(relative).replace("/", ".")
    for extension in sorted(TS_EXTENSIONS + SOURCE_SUFFIXES, key=len, reverse=True):
        if relative.endswith(extension):
            relative = relative[: -len(extension)]
            break
    return relative.replace("/", ".")


def export_callgraph(db: Database, root: str = "") -> dict[str, list[str]]:
    """The call graph of files under ``root`` (repo-relative folder; "" = everything)."""
    root = normalise_path(root)
    root = "" if root == "." else root
    like = f"{root}/%" if root else "%"

    def read(conn: Any) -> tuple[list[Any], list[Any]]:
        entities = conn.execute(
            select(
                ENTITIES.c.id, ENTITIES.c.type, ENTITIES.c.file_path, ENTITIES.c.qualified_name
            ).where(ENTITIES.c.file_path.like(like))
        ).all()
        edges = conn.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity, EDGES.c.resolution).where(
                EDGES.c.type == "calls", EDGES.c.file_path.like(like)
            )
        ).all()
        self_calls = [(e[0], e[1], None, 1.0) for e in edges if e[2] in DISPATCHED]
        overrides = calls_from(raw_connection(conn), self_calls)
        edges += [(c.caller, c.override, OVERRIDE) for c in overrides]
        return entities, edges

    entities, edges = db.read(read)
    kinds = {row.id: row.type for row in entities}

    def node_name(entity_id: str) -> str | None:
        path, _, qname = entity_id.partition("::")
        module = _module(path, root if path.startswith(root + "/") or not root else "")
        if not qname:
            return module
        parts = qname.split(".")
        # Class bodies run in their enclosing scope: drop trailing class parts.
        while parts and kinds.get(f"{path}::{'.'.join(parts)}") == "class":
            parts.pop()
        return f"{module}.{'.'.join(parts)}" if parts else module

    graph: dict[str, set[str]] = {}
    for row in entities:
        if row.type in ("file", "function", "method"):
            name = node_name(row.id)
            if name is not None:
                graph.setdefault(name, set())
    for source, target, resolution in edges:
        caller = node_name(source)
        if caller is None or target.startswith(UNRESOLVED_PREFIX) or resolution == "class":
            continue
        if target.startswith(BUILTIN_PREFIX):
            callee = "<builtin>." + target[len(BUILTIN_PREFIX) :]
        elif target.startswith(EXTERNAL_PREFIX):
            callee = target[len(EXTERNAL_PREFIX) :]
        else:
            path, _, qname = target.partition("::")
            inside = not root or path.startswith(root + "/")
            module = _module(path, root if inside else "")
            callee = f"{module}.{qname}" if qname else module
        graph.setdefault(caller, set()).add(callee)
    return {caller: sorted(callees) for caller, callees in sorted(graph.items())}
