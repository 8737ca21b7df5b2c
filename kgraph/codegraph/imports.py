"""Modules for the :class:`~kgraph.codegraph.resolve.Resolver`: what an import names, and
the names a module makes visible.

Modules follow ``import``s, star imports (``__all__``), ``__init__`` re-exports and
submodules; TS/JS modules their exports and ``export * from``. These are plain functions
taking the resolver: they are part of its evaluation (they record what they read in its
read sets, and cache in its cache).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from kgraph.codegraph.langs.go_packages import go_import
from kgraph.codegraph.langs.java_packages import java_import
from kgraph.codegraph.script_resolve import WHOLE_EXPORTS, required
from kgraph.codegraph.summary import Assigned, StarImport
from kgraph.codegraph.values import (
    CONF_EXTERNAL,
    CONF_IMPORT,
    CONF_LOCAL,
    Result,
    unique,
    weaken,
)

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver


def import_module(resolver: Resolver, importer: str, spec: str, level: int = 0) -> list[Result]:
    """The module an import names: ``("file", path)``/``("dir", folder)``/``("ext", spec)``."""
    summary = resolver.summary(importer)
    lang = summary["lang"] if summary is not None else "python"
    if lang == "go":
        return go_import(resolver, importer, spec)
    if lang == "java":
        return java_import(resolver, importer, spec)
    if lang == "rust":  # a `use` path: crate::a, super::b, an external crate's
        return resolver.eval_ref(importer, "", spec, None)
    if lang == "python":
        if level:
            target = resolver.index.python_relative(importer, spec, level)
            key = posixpath.normpath(
                posixpath.join(posixpath.dirname(importer), "../" * (level - 1), *spec.split("."))
            )
        else:
            target = resolver.index.python_absolute(importer, spec)
            key = spec
    else:
        target = resolver.index.script_module(importer, spec)
        key = (
            posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
            if spec.startswith(".")
            else spec
        )
    if target is None:
        resolver.note_missing(key)
        if level or spec.startswith("."):
            return []
        if (
            lang == "python"
            and "." in spec
            and resolver.index.python_absolute(importer, spec.split(".", 1)[0]) is not None
        ):
            return []  # a module missing from a package of the repository: not external
        return [(("ext", spec), CONF_EXTERNAL, "external")]
    resolver.note(target.rstrip("/"), "")
    if target.endswith("/"):
        return [(("dir", target.rstrip("/")), CONF_LOCAL, "import")]
    return [(("file", target), CONF_LOCAL, "import")]


def from_import(
    resolver: Resolver, importer: str, module: str, level: int, name: str
) -> list[Result]:
    if name == WHOLE_EXPORTS:  # `require(module)`
        return weaken(required(resolver, importer, module), CONF_IMPORT, "import")
    results: list[Result] = []
    for value, _conf, _method in import_module(resolver, importer, module, level):
        if value[0] == "ext":
            dotted = f"{module}.{name}" if name != "default" else module
            results.append((("ext", dotted), CONF_EXTERNAL, "external"))
            continue
        # `from . import x` inside the package's own __init__ names the submodule.
        found = resolver.attr(value, name) if value[1] != importer else []
        if not found and value[0] in ("file", "dir"):
            folder = value[1] if value[0] == "dir" else posixpath.dirname(value[1])
            if value[0] == "dir" or value[1].endswith(("__init__.py", "__init__.pyi")):
                sub = resolver.index.python_path(f"{folder}/{name}" if folder else name)
                if sub is not None:
                    resolver.note(sub.rstrip("/"), "")
                    kind = "dir" if sub.endswith("/") else "file"
                    found = [((kind, sub.rstrip("/")), CONF_LOCAL, "import")]
        results.extend(weaken(found, CONF_IMPORT, "import"))
    return results


def module_attr(
    resolver: Resolver, path: str, name: str, local_only: bool = False, star_only: bool = False
) -> list[Result]:
    """``name`` in module ``path``'s namespace (Python) or exports (TS/JS)."""
    key = ("modattr", path, name, local_only, star_only)
    return resolver.cached(key, lambda: _module_attr(resolver, path, name, local_only, star_only))


def _module_attr(
    resolver: Resolver, path: str, name: str, local_only: bool, star_only: bool
) -> list[Result]:
    summary = resolver.summary(path, name)
    if summary is None:
        return []
    python = summary["lang"] == "python"
    if not star_only:
        if python:
            bindings = summary["scopes"][""]["names"].get(name)
        else:
            exported = summary["exports"].get(name)
            bindings = [exported] if exported is not None else None
            if local_only:
                bindings = summary["scopes"][""]["names"].get(name) or bindings
        if bindings:
            if not python and not local_only:
                # An export names a module-level binding, whatever line it is on.
                return unique(
                    [
                        r
                        for b in bindings
                        for r in (
                            resolver.eval_ref(path, "", b.ref, None)
                            if isinstance(b, Assigned)
                            else resolver.eval_binding(path, "", b)
                        )
                    ]
                )
            return resolver.eval_bindings(path, "", bindings)
        if local_only:
            return []
    stars = summary["star"] if python else [StarImport(m, 0) for m in summary["estar"]]
    if stars:
        resolver.note(path, "*")
    for module, level in stars:
        for value, _c, _m in import_module(resolver, path, module, level):
            if value[0] != "file":
                continue
            target = resolver.summary(value[1], "__all__")
            public = target.get("all") if target is not None else None
            if public is not None and name not in public:
                continue
            if public is None and name.startswith("_"):
                continue
            found = module_attr(resolver, value[1], name)
            if found:
                return weaken(found, CONF_IMPORT, "import")
    if python and not star_only:
        sub = resolver.index.submodule(path, name)
        if sub is not None:
            resolver.note(sub.rstrip("/"), "")
            kind = "dir" if sub.endswith("/") else "file"
            return [((kind, sub.rstrip("/")), CONF_LOCAL, "import")]
    return []
