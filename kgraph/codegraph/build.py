"""One file's summary + a :class:`Resolver` -> ``graph_entities``/``graph_relationships`` rows.

Entity ids: a file's own entity is its path (it also stands for the module-level code);
every definition is ``<path>::<qualified name>``. Targets outside the repository use ids that
cannot be paths: ``<builtin>::len``, ``<external>::os.path.join``, and a call that could not
be resolved keeps a name-only candidate ``<unresolved>::name`` with a low confidence.
"""

from __future__ import annotations

import posixpath
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgraph.codegraph.hierarchy import bases
from kgraph.codegraph.imports import import_module, module_attr
from kgraph.codegraph.memo import CALL_SITES, MAX_WORK, MISSING_IMPORT
from kgraph.codegraph.modules import PY_SUFFIXES, python_module_path
from kgraph.codegraph.resolve import Resolver
from kgraph.codegraph.summary import Definition, ImportedName, Summary
from kgraph.codegraph.summary_codec import json_text
from kgraph.codegraph.targets import (
    BUILTIN_PREFIX,
    EXTERNAL_PREFIX,
    UNRESOLVED_PREFIX,
    call_targets,
    value_target,
)
from kgraph.codegraph.values import Result

__all__ = [
    "BUILTIN_PREFIX",
    "EXTERNAL_PREFIX",
    "UNRESOLVED_PREFIX",
    "Edge",
    "EdgeRow",
    "EntityRow",
    "FileRows",
    "build_file",
    "module_name",
    "resolve_file",
]

_MAX_REASON = 500  # characters of a failure's reason kept (an exception's text can be long)


class EntityRow(NamedTuple):
    """A ``graph_entities`` row, its fields in the table's column order: written as is."""

    id: str
    type: str
    name: str
    qualified_name: str
    file_path: str
    line_number: int | None
    end_line: int | None
    exported: bool
    package: str | None
    metadata: str | None  # JSON text


EdgeRow = tuple[str, str, str, str, str | None, int | None, float, str, str | None]


class Edge:
    """A ``graph_relationships`` row while its file is built: the same edge met again (at
    another call site) is counted, and keeps its most confident resolution."""

    def __init__(
        self,
        from_entity: str,
        to_entity: str,
        type: str,
        file_path: str,
        to_file: str | None,
        line_number: int | None,
        confidence: float,
        resolution: str,
    ) -> None:
        self.from_entity = from_entity
        self.to_entity = to_entity
        self.type = type
        self.file_path = file_path
        self.to_file = to_file
        self.line_number = line_number
        self.confidence = confidence
        self.resolution = resolution
        self.count = 1

    def row(self) -> EdgeRow:
        """The row in the table's column order, ``metadata`` last (the count, if over 1)."""
        metadata = None if self.count == 1 else f'{{"count":{self.count}}}'
        return (
            self.from_entity,
            self.to_entity,
            self.type,
            self.file_path,
            self.to_file,
            self.line_number,
            self.confidence,
            self.resolution,
            metadata,
        )


@dataclass
class FileRows:
    """What resolving one file produces."""

    entities: list[EntityRow] = field(default_factory=list)
    edges: dict[tuple[str, str, str], Edge] = field(default_factory=dict)
    deps: dict[str, Any] = field(default_factory=dict)  # {"files": {path: [top-level names read]}}
    missing: list[str] = field(default_factory=list)  # import keys that matched no file
    pulled: list[str] = field(default_factory=list)  # call-site keys whose sites were read
    sites: list[str] = field(default_factory=list)  # the keys its call sites are indexed under

    def edge(
        self,
        source: str,
        target: str,
        kind: str,
        file_path: str,
        to_file: str | None,
        line: int | None,
        confidence: float,
        resolution: str,
    ) -> None:
        key = (source, target, kind)
        old = self.edges.get(key)
        if old is not None:  # the same edge again (another call site): count it
            old.count += 1
            if confidence > old.confidence:
                old.confidence = round(confidence, 3)
                old.resolution = resolution
            return
        self.edges[key] = Edge(
            source, target, kind, file_path, to_file, line, round(confidence, 3), resolution
        )


def module_name(path: str) -> str:
    """The dotted module name a file is shown under (``pkg/mod.py`` -> ``pkg.mod``)."""
    if path.endswith(PY_SUFFIXES):
        return python_module_path(path).replace("/", ".")
    return path.rsplit(".", 1)[0]


def resolve_file(path: str, summary: Summary, resolver: Resolver) -> FileRows:
    """:func:`build_file`, a failure kept to the file: one whose resolution raises keeps its
    definitions (no edge beyond them) and is recorded as failed, with why, in its ``deps``
    (``graph summary`` lists them). A file the summariser failed on, or whose resolution
    ran out of work (:data:`~kgraph.codegraph.memo.MAX_WORK`), is recorded likewise, with
    the rows it has. One file's bug used to abort the whole parse, storing nothing. A
    failed file is tried again when it, or what it read before failing, changes (or with
    ``--force``)."""
    try:
        rows = build_file(path, summary, resolver)
    except Exception as exc:  # a resolver bug must not stop a whole repository's parse
        rows = FileRows()
        _definitions(path, summary, rows)
        rows.deps = {"files": _reads(path, resolver)[0]}  # what it read before it failed
        with suppress(Exception):  # its call sites, for other files' parameters
            rows.sites = sorted(resolver.site_entries(path))
        _fail(rows, "resolve", f"{type(exc).__name__}: {exc}")
        return rows
    if "failed" in summary:
        _fail(rows, "parse", summary["failed"])
    elif resolver.exhausted:
        _fail(rows, "bound", f"resolution stopped after {MAX_WORK:,} computations: partial")
    return rows


def _fail(rows: FileRows, stage: str, reason: str) -> None:
    """Record the file as failed in its ``deps`` (no column of its own: no migration),
    which :func:`~kgraph.codegraph.store.failed_files` reads: ``stage`` is ``parse`` (the
    summariser raised), ``resolve`` (its resolution raised) or ``bound`` (its resolution
    was cut by the work bound)."""
    rows.deps["failed"] = reason[:_MAX_REASON]
    rows.deps["failed_stage"] = stage


def build_file(path: str, summary: Summary, resolver: Resolver) -> FileRows:
    """Entities and edges of one file; ``deps`` lists what its resolution read elsewhere."""
    resolver.begin()
    rows = FileRows()
    _definitions(path, summary, rows)
    _imports(path, summary, resolver, rows)
    edge = rows.edge
    # Calls are stored flat per scope ([ref, line, ref, line, ...]): read in pairs, the
    # scope's entity found once (a Call record per call costs ~10% of this loop).
    defs: dict[str, Definition] = summary["defs"]
    for scope, flat in summary["calls"].items():
        source = _scope_entity(path, defs, scope)
        for ref, line in zip(flat[0::2], flat[1::2], strict=True):
            at = int(line)
            for target, to_file, confidence, method in call_targets(
                resolver, path, scope, str(ref), at
            ):
                edge(source, target, "calls", path, to_file, at, confidence, method)
    _classes(path, summary, resolver, rows)
    _exports(path, summary, resolver, rows)
    files, rows.missing, rows.pulled = _reads(path, resolver)
    rows.deps = {"files": files}
    rows.sites = sorted(resolver.site_entries(path))
    return rows


def _reads(path: str, resolver: Resolver) -> tuple[dict[str, list[str]], list[str], list[str]]:
    """What the file's resolution read: of other files (file -> top-level names), the
    import keys that matched no file, and the call-site keys whose sites it read."""
    names: dict[str, set[str]] = {}
    missing: set[str] = set()
    pulled: set[str] = set()
    for other, name in resolver.consulted:
        if other == MISSING_IMPORT:
            missing.add(name)
        elif other == CALL_SITES:
            pulled.add(name)
        elif other != path:
            names.setdefault(other, set()).add(name)
    files = {other: sorted(n) for other, n in sorted(names.items())}
    return files, sorted(missing), sorted(pulled)


def _scope_entity(path: str, defs: dict[str, Definition], scope: str) -> str:
    """The entity of the innermost definition holding ``scope`` (the file's, for none)."""
    while scope and scope not in defs:
        scope = scope.rsplit(".", 1)[0] if "." in scope else ""
    return f"{path}::{scope}" if scope else path


def _definitions(path: str, summary: Summary, rows: FileRows) -> None:
    """The file's entity, its definitions' and their ``defines`` edges: no resolution."""
    defs: dict[str, Definition] = summary["defs"]
    module = module_name(path)
    package = module.rsplit(".", 1)[0] if "." in module else None
    meta = json_text({"language": summary["lang"], "parse_errors": summary["errors"]})
    basename = posixpath.basename(path)
    rows.entities.append(
        EntityRow(path, "file", basename, module, path, 1, None, False, package, meta)
    )
    for qname, info in defs.items():
        decorators = info.get("decorators")
        rows.entities.append(
            EntityRow(
                f"{path}::{qname}",
                info["kind"],
                qname.rsplit(".", 1)[-1],
                qname,
                path,
                info["line"],
                info.get("end"),
                bool(info.get("exported")),
                module,
                json_text({"decorators": decorators}) if decorators else None,
            )
        )
        parent = qname.rsplit(".", 1)[0] if "." in qname else ""
        source = f"{path}::{parent}" if parent in defs else path
        rows.edge(source, f"{path}::{qname}", "defines", path, path, info["line"], 1.0, "local")


def _imports(path: str, summary: Summary, resolver: Resolver, rows: FileRows) -> None:
    python = summary["lang"] == "python"
    for _scope, module, level, names, line in summary["imports"]:
        modules = import_module(resolver, path, module, level)
        for value, _conf, _method in modules:
            target = value_target(value)
            if target is not None:
                resolution = "external" if value[0] == "ext" else "import"
                conf = 0.9 if value[0] == "ext" else 1.0
                rows.edge(path, target[0], "imports", path, target[1], line, conf, resolution)
            if value[0] not in ("file", "dir", "gopkg", "jpkg", "rmod"):
                continue
            for name in names:
                if name == "*":
                    continue
                for found, conf, method in resolver.attr(value, name):
                    target = value_target(found)
                    if target is not None and found[0] != "inst":
                        rows.edge(
                            path,
                            target[0],
                            "imports",
                            path,
                            target[1],
                            line,
                            conf,
                            method if python else "import",
                        )


def _classes(path: str, summary: Summary, resolver: Resolver, rows: FileRows) -> None:
    for qname, info in summary["defs"].items():
        if info["kind"] not in ("class", "interface"):
            continue
        source = f"{path}::{qname}"
        for value, conf, method in bases(resolver, path, qname):
            target = value_target(value)
            if target is not None and value[0] in ("def", "ext", "builtin"):
                rows.edge(source, target[0], "extends", path, target[1], info["line"], conf, method)
        scope = summary["scopes"].get(qname)
        parent = (scope["parent"] if scope is not None else "") or ""
        for ref in info.get("implements", ()):
            for value, conf, method in resolver.eval_ref(path, parent, ref, info["line"]):
                target = value_target(value)
                if target is not None and value[0] in ("def", "ext"):
                    rows.edge(
                        source, target[0], "implements", path, target[1], info["line"], conf, method
                    )
    for type_ref, trait_ref, line in summary.get("impls", ()):  # Rust: `impl Trait for T`
        at = int(line)
        for kind, conf, method in resolver.eval_ref(path, "", str(type_ref), at):
            if kind[0] != "def" or kind[1] == path:  # the type's own file made the edge
                continue
            for trait, conf2, method2 in resolver.eval_ref(path, "", str(trait_ref), at):
                target = value_target(trait)
                if target is not None and trait[0] in ("def", "ext"):
                    source = f"{kind[1]}::{kind[2]}"
                    weakest = method if conf <= conf2 else method2
                    rows.edge(
                        source,
                        target[0],
                        "implements",
                        path,
                        target[1],
                        at,
                        min(conf, conf2),
                        weakest,
                    )


def _exports(path: str, summary: Summary, resolver: Resolver, rows: FileRows) -> None:
    """Re-exports: names this module makes public that are defined elsewhere (and TS exports)."""
    if summary["lang"] == "python":
        names = summary["all"]
        if names is None:
            if not path.endswith(("__init__.py", "__init__.pyi")):
                return
            names = [
                n
                for n, bindings in summary["scopes"][""]["names"].items()
                if not n.startswith("_") and any(isinstance(b, ImportedName) for b in bindings)
            ]
    else:
        names = list(summary["exports"])
        for module in summary["estar"]:
            for value, _c, _m in import_module(resolver, path, module):
                target = value_target(value)
                if target is not None:
                    rows.edge(path, target[0], "exports", path, target[1], None, 1.0, "import")
    for name in names:
        results: list[Result] = module_attr(resolver, path, name)
        found = False
        for value, conf, method in results:
            target = value_target(value)
            if target is not None and value[0] in ("def", "file", "ext"):
                rows.edge(path, target[0], "exports", path, target[1], None, conf, method)
                found = True
        if not found:  # a variable (`__version__`, `DEFAULT = Default()`): where it is defined
            origin = _defined_in(resolver, path, name, 0)
            if origin is not None and origin[0] != path:
                target_id = f"{origin[0]}::{origin[1]}"
                rows.edge(path, target_id, "exports", path, origin[0], None, 1.0, "import")


def _defined_in(resolver: Resolver, path: str, name: str, depth: int) -> tuple[str, str] | None:
    """(file, name) of the module-level definition ``name`` of module ``path`` stands for,
    following ``from ... import`` re-exports (values are not evaluated: a variable is found
    where it is assigned)."""
    summary = resolver.summary(path, name)
    if summary is None or depth > 10:
        return None
    if name in summary["defs"]:
        return path, name
    sources = [
        (binding.module, binding.level, binding.name)
        for binding in summary["scopes"][""]["names"].get(name, ())
        if isinstance(binding, ImportedName)
    ]
    if not sources:  # a star import may provide it
        sources = [(module, level, name) for module, level in summary["star"]]
    for module, level, imported in sources:
        for value, _c, _m in import_module(resolver, path, module, level):
            if value[0] == "file" and value[1] != path:
                found = _defined_in(resolver, value[1], imported, depth + 1)
                if found is not None:
                    return found
    return None
