"""Go packages for the :class:`~kgraph.codegraph.resolve.Resolver`: what an import path
names, the names a package's files share, and the members of a type.

- **Packages.** A package is the ``.go`` files of one folder that declare the same package
  name (a folder's ``foo_test`` files are a package of their own); a file sees the
  package-level names of every file of its package. An import path names a folder of the
  repository when it extends the module path of a ``go.mod`` (``github.com/x/y/pkg/foo``
  with ``module github.com/x/y``: the folder ``pkg/foo`` below that ``go.mod``); with no
  ``go.mod`` at all, the folder whose path ends the import path; otherwise it is external
  (``("ext", "github.com/spf13/cobra")``). A package value is ``("gopkg", folder)``.
- **Members.** A field of a struct, else a method ``T.M`` declared in any file of ``T``'s
  package, else a member an embedded field promotes (depth first). An interface's method
  is ``I.M`` with the resolution ``interface`` and a confidence below any other step's, so
  the edge keeps saying it: which implementation runs is found when the graph is read
  (:mod:`.go_dispatch`).
- **Names** no scope of the file binds: its package's, then its dot imports', then an
  imported package whose declared name differs from its import path's, then Go's
  predeclared identifiers (``<builtin>::len``).

Every read goes through the resolver, so a file's resolution records which names of which
files it used; a folder gaining a ``.go`` file re-resolves the files that looked names up
in it (:data:`FOLDER_KEY`, a "missing import" key).
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from kgraph.codegraph.langs import GO_SUFFIX
from kgraph.codegraph.summary import Binding, ImportedModule
from kgraph.codegraph.values import (
    CONF_BUILTIN,
    CONF_EXTERNAL,
    CONF_LOCAL,
    Result,
    Value,
    unique,
    weaken,
)

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

PACKAGE_NAME: Final = "package"  # the module-scope name holding a file's package name
MODULE_NAME: Final = "module"  # go.mod's module path, likewise
GOMOD: Final = "go.mod"
# The key a resolution reading a folder's package notes as "missing": a .go file added to
# the folder satisfies it (modules.file_keys).
FOLDER_KEY: Final = "go:"
TEST_SUFFIX: Final = "_test.go"
# Below every other step's confidence: an edge through an interface keeps this resolution.
CONF_INTERFACE: Final = 0.75
INTERFACE: Final = "interface"
# Go's predeclared functions and types (constants and nil are no calls).
_FUNCTIONS: Final = "append cap clear close complex copy delete imag len make max min new panic"
_TYPES: Final = "any bool byte comparable complex64 complex128 error float32 float64 int int8"
_MORE_TYPES: Final = "int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr"
GO_BUILTINS: Final = frozenset(
    f"{_FUNCTIONS} print println real recover {_TYPES} {_MORE_TYPES}".split()
)

_MAJOR: Final = re.compile(r"v[0-9]+")


@lru_cache(maxsize=4096)
def default_package_name(import_path: str) -> str:
    """The name an import binds without an alias: the package's own name, which by
    convention is the path's last element; a major version (``.../v5``, ``yaml.v3``) and
    a ``go-`` prefix or ``-go`` suffix are not part of it (``github.com/go-git/go-git/v5``
    is package ``git``)."""
    parts = import_path.split("/")
    last = parts[-1]
    if len(parts) > 1 and _MAJOR.fullmatch(last):
        last = parts[-2]
    last = re.sub(r"\.v[0-9]+$", "", last)
    if last.startswith("go-"):
        last = last[3:]
    if last.endswith(("-go", ".go")):
        last = last[:-3]
    return last.replace("-", "_").replace(".", "_")


def package_name(resolver: Resolver, path: str) -> str:
    """The package a Go file declares ("" when it declares none)."""
    summary = resolver.summary(path, PACKAGE_NAME)
    names = summary["scopes"][""]["names"].get(PACKAGE_NAME) if summary is not None else None
    first = names[0] if names else None
    return first.dotted if isinstance(first, ImportedModule) else ""


def package_files(resolver: Resolver, folder: str, package: str) -> list[str]:
    """The files of package ``package`` in ``folder``, its test files last. A test file's
    names are part of the package: code that uses them only builds with the tests, so
    whatever uses one of them is test code, whatever file it is in."""

    def compute() -> list[str]:
        resolver.note_missing(FOLDER_KEY + folder)
        files = resolver.index.files_in(folder, GO_SUFFIX)
        ordered = [f for f in files if not f.endswith(TEST_SUFFIX)]
        ordered += [f for f in files if f.endswith(TEST_SUFFIX)]
        return [path for path in ordered if package_name(resolver, path) == package]

    cut: list[str] = []
    return resolver.memo(("gofiles", folder, package), compute, cut)


def _declared(resolver: Resolver, files: list[str], name: str) -> list[Result]:
    """``name`` as the first of ``files`` that declares it at package level declares it
    (imports are the file's own, not the package's)."""
    for path in files:
        summary = resolver.summary(path, name)
        bindings = summary["scopes"][""]["names"].get(name) if summary is not None else None
        if not bindings:
            continue
        kept: list[Binding] = [b for b in bindings if not isinstance(b, ImportedModule)]
        if kept:
            return resolver.eval_bindings(path, "", kept)
    return []


def package_lookup(resolver: Resolver, path: str, name: str) -> list[Result]:
    """``name`` used in ``path`` where no scope of the file binds it."""
    folder = posixpath.dirname(path)
    package = package_name(resolver, path)
    found = resolver.cached(
        ("gopkgname", folder, package, name),
        lambda: _declared(resolver, package_files(resolver, folder, package), name),
    )
    if found:
        return found
    summary = resolver.summary(path, "*")
    if summary is None:
        return []
    dotted: list[Result] = []
    for spec in summary["estar"]:  # import . "pkg"
        for value, conf, method in go_import(resolver, path, spec):
            if value[0] == "gopkg":
                dotted.extend(weaken(package_attr(resolver, value, name), conf, method))
    if dotted:
        return unique(dotted)
    if name in GO_BUILTINS:
        return [(("builtin", name), CONF_BUILTIN, "builtin")]
    for record in summary["imports"]:  # a package whose name is not its path's
        if default_package_name(record.module) != name:
            for value, conf, method in go_import(resolver, path, record.module):
                if value[0] == "gopkg" and _main_package(resolver, value[1]) == name:
                    return [(value, conf, method)]
    return []


def _main_package(resolver: Resolver, folder: str) -> str:
    """The package importers of a folder get: the one its non-test files declare (its
    test files', if it has none); of several (a ``package main`` generator kept beside the
    package), the folder's own name, else the commonest."""
    files = resolver.index.files_in(folder, GO_SUFFIX)
    plain = [f for f in files if not f.endswith(TEST_SUFFIX)] or files
    counts: dict[str, int] = {}
    for path in plain:
        name = package_name(resolver, path)
        counts[name] = counts.get(name, 0) + 1
    if len(counts) < 2:
        return next(iter(counts), "")
    own = default_package_name(posixpath.basename(folder))
    return own if own in counts else max(sorted(counts), key=lambda n: counts[n])


def package_attr(resolver: Resolver, value: Value, name: str) -> list[Result]:
    """``pkg.Name`` for the package value ``("gopkg", folder)``."""
    folder = value[1]

    def compute() -> list[Result]:
        files = package_files(resolver, folder, _main_package(resolver, folder))
        return _declared(resolver, files, name)

    return resolver.cached(("gopkgattr", folder, name), compute)


# -- imports ------------------------------------------------------------------------------
def _modules(resolver: Resolver) -> list[tuple[str, str]]:
    """(folder, module path) of every ``go.mod``, the longest module path first."""

    def compute() -> list[tuple[str, str]]:
        found = []
        for folder, paths in resolver.index.by_folder(GOMOD).items():
            for path in paths:
                if posixpath.basename(path) != GOMOD:
                    continue
                summary = resolver.summary(path, MODULE_NAME)
                names = summary["scopes"][""]["names"] if summary is not None else {}
                bound = names.get(MODULE_NAME)
                if bound and isinstance(bound[0], ImportedModule):
                    found.append((folder, bound[0].dotted))
        return sorted(found, key=lambda m: (-len(m[1]), m[0]))

    resolver.note_missing(GOMOD)  # a go.mod added anywhere may claim any import
    cut: list[tuple[str, str]] = []
    return resolver.memo(("gomods",), compute, cut)


def go_import(resolver: Resolver, importer: str, spec: str) -> list[Result]:
    """The package an import path names (see the module docstring)."""
    modules = _modules(resolver)
    for folder, module in modules:
        if spec == module or spec.startswith(module + "/"):
            target = posixpath.join(folder, spec[len(module) + 1 :]) if spec != module else folder
            if resolver.index.files_in(target, GO_SUFFIX):
                return [(("gopkg", target), CONF_LOCAL, "import")]
            resolver.note_missing(FOLDER_KEY + target)
            return []
    if not modules:  # no go.mod: the folder whose path ends the import path
        folders = resolver.index.by_folder(GO_SUFFIX)
        suffixes = [f for f in folders if f and (spec == f or spec.endswith("/" + f))]
        if suffixes:
            return [(("gopkg", max(suffixes, key=len)), CONF_LOCAL, "import")]
    return [(("ext", spec), CONF_EXTERNAL, "external")]


# -- members ------------------------------------------------------------------------------
def go_member(resolver: Resolver, path: str, qname: str, name: str) -> list[Result]:
    """Member ``name`` of the Go type ``qname`` of ``path`` (see the module docstring)."""
    return resolver.cached(
        ("gomember", path, qname, name), lambda: _member(resolver, path, qname, name)
    )


def _member(resolver: Resolver, path: str, qname: str, name: str) -> list[Result]:
    summary = resolver.summary(path, qname)
    info = summary["defs"].get(qname) if summary is not None else None
    if summary is None or info is None:
        return []
    member = f"{qname}.{name}"
    parent = qname.rpartition(".")[0]
    if info["kind"] == "interface":
        if member in summary["defs"]:
            return [(("def", path, member), CONF_INTERFACE, INTERFACE)]
    else:
        scope = summary["scopes"].get(qname)
        bindings = scope["names"].get(name) if scope is not None else None
        if bindings:  # a field: its type is read where the struct is declared
            return resolver.eval_bindings(path, parent, bindings)
        if not parent:  # only package-level types have methods
            folder = posixpath.dirname(path)
            files = package_files(resolver, folder, package_name(resolver, path))
            for other in [path, *(f for f in files if f != path)]:
                found = resolver.summary(other, qname)
                if found is not None and member in found["defs"]:
                    return [(("def", other, member), CONF_LOCAL, "method")]
    results: list[Result] = []
    for ref in info.get("bases", ()):  # embedded: promoted members
        for value, conf, method in resolver.eval_ref(path, parent, ref, info["line"]):
            if value[0] == "def" and value[1].endswith(GO_SUFFIX):
                results.extend(weaken(go_member(resolver, value[1], value[2], name), conf, method))
            elif value[0] == "ext":
                results.append((("ext", f"{value[1]}.{name}"), CONF_EXTERNAL, "external"))
    return unique(results)
