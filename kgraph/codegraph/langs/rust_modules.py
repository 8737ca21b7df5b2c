"""Rust modules and crates for the :class:`~kgraph.codegraph.resolve.Resolver`: what a path
names, and the members of a type.

- **Crates.** A crate is the folder of a ``Cargo.toml`` (a file of its own, language
  ``cargo``, giving the crate's name and its library's path); its root module is
  ``src/lib.rs`` (or the ``[lib] path``), else ``src/main.rs``. A crate of the repository
  is named in paths by its package name with ``-`` as ``_`` (``cryptography_x509::...``);
  any other first segment of a path no scope binds is an external crate
  (``("ext", "pyo3")``), or a name of the prelude (``Vec``, ``Some``: ``std``'s).
- **Modules** follow the files, as ``mod x;`` finds them: a module is its file
  (``("rmod", path)``), its submodule ``x`` is ``x.rs`` or ``x/mod.rs`` in its folder (in
  ``name/`` beside ``name.rs``). Paths start at ``crate`` (the root module), ``super`` (the
  parent) or ``mod`` (``self::``, renamed by the summariser: ``self`` is a method's
  receiver), or at a name the file binds (an item, a ``use``). A module's attribute is an
  item of its file, a ``use`` it makes (a re-export), a submodule, or an item of a module
  it imports with ``*``.
- **Members.** A method ``T.m`` of an ``impl`` block in the type's file or a file of its
  folder, else a field of the struct (a getter is often named like its field: ``x.url()``
  is the method), else a provided method of a trait the type implements in its file. A
  trait's method (a call on ``&dyn Trait``, ``impl Trait`` or a type parameter bounded by
  it) is ``Trait.m`` with the resolution ``interface``: the implementations it may run are
  found when the graph is read (:mod:`.rust_dispatch`).

Reads go through the resolver, so a file's resolution records what it used; a ``.rs``
file added where a module was looked for, or a ``Cargo.toml`` anywhere, re-resolves the
files that looked (:data:`MODULE_KEY`, "missing import" keys).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Final

from kgraph.codegraph.summary import Binding, ImportedModule
from kgraph.codegraph.values import CONF_EXTERNAL, CONF_LOCAL, Result, Value, unique, weaken

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

RUST_SUFFIX: Final = ".rs"
CARGO: Final = "Cargo.toml"
CRATE_NAME: Final = "package"  # Cargo.toml's module-scope names: the crate's name
LIB_PATH: Final = "lib"  # and its library's path, relative to the Cargo.toml
MODULE_KEY: Final = "rs:"  # + a module's path without .rs: where it was looked for
CONF_INTERFACE: Final = 0.75
INTERFACE: Final = "interface"
# Path heads that are no name: the crate's root, the parent module, this module.
HEADS: Final = frozenset({"crate", "super", "mod"})
REQUIRED: Final = "required"  # Scope.method of a trait's method without a body
_ROOTS: Final = frozenset({"lib.rs", "main.rs", "mod.rs"})
# The prelude: names every module sees, and where they are.
PRELUDE: Final = {
    "Vec": "std.vec.Vec",
    "String": "std.string.String",
    "Box": "std.boxed.Box",
    "Option": "std.option.Option",
    "Some": "std.option.Option.Some",
    "None": "std.option.Option.None",
    "Result": "std.result.Result",
    "Ok": "std.result.Result.Ok",
    "Err": "std.result.Result.Err",
    "ToString": "std.string.ToString",
    "Default": "std.default.Default",
    "Clone": "std.clone.Clone",
    "Iterator": "std.iter.Iterator",
    "Drop": "std.ops.Drop",
    "From": "std.convert.From",
    "Into": "std.convert.Into",
    "drop": "std.mem.drop",
}


def _names(resolver: Resolver, path: str, name: str) -> dict[str, list[Binding]]:
    summary = resolver.summary(path, name)
    return summary["scopes"][""]["names"] if summary is not None else {}


def crate_of(resolver: Resolver, path: str) -> tuple[str, str] | None:
    """(the folder of the crate ``path`` is in, its root module's file), by the nearest
    ``Cargo.toml`` above it; None outside any crate of the repository."""
    folders = resolver.index.by_folder(CARGO)
    folder = posixpath.dirname(path)
    while True:
        if folder in folders:
            return folder, _root_file(resolver, folder)
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _root_file(resolver: Resolver, folder: str) -> str:
    manifest = posixpath.join(folder, CARGO)
    bound = _names(resolver, manifest, LIB_PATH).get(LIB_PATH)
    candidates = ["src/lib.rs", "src/main.rs"]
    if bound and isinstance(bound[0], ImportedModule):
        candidates.insert(0, bound[0].dotted)
    files = resolver.index.files
    for candidate in candidates:
        path = posixpath.normpath(posixpath.join(folder, candidate))
        if path in files:
            return path
    resolver.note_missing(MODULE_KEY + posixpath.join(folder, "src/lib"))
    return posixpath.join(folder, "src/lib.rs")


def crates(resolver: Resolver) -> dict[str, str]:
    """The repository's crates: name (``-`` as ``_``) -> root module file."""

    def compute() -> dict[str, str]:
        found: dict[str, str] = {}
        for folder in sorted(resolver.index.by_folder(CARGO)):
            bound = _names(resolver, posixpath.join(folder, CARGO), CRATE_NAME).get(CRATE_NAME)
            if bound and isinstance(bound[0], ImportedModule):
                found[bound[0].dotted.replace("-", "_")] = _root_file(resolver, folder)
        return found

    resolver.note_missing(CARGO)
    cut: dict[str, str] = {}
    return resolver.memo(("crates",), compute, cut)


def _module_dir(path: str, root: str) -> str:
    """The folder a module's submodules are in."""
    if path == root or posixpath.basename(path) in _ROOTS:
        return posixpath.dirname(path)
    return path[: -len(RUST_SUFFIX)]


def submodule(resolver: Resolver, path: str, root: str, name: str) -> str | None:
    """The file of module ``path``'s submodule ``name``."""
    base = posixpath.join(_module_dir(path, root), name)
    for candidate in (base + RUST_SUFFIX, base + "/mod.rs"):
        if candidate in resolver.index.files:
            resolver.note(candidate, "")
            return candidate
    resolver.note_missing(MODULE_KEY + base)
    return None


def parent_module(resolver: Resolver, path: str, root: str) -> str | None:
    """The file of the module ``path`` is a submodule of (None for a crate's root)."""
    if path == root:
        return None
    folder = posixpath.dirname(path)
    if posixpath.basename(path) == "mod.rs":
        folder = posixpath.dirname(folder)
    if folder == posixpath.dirname(root):
        return root
    for candidate in (folder + RUST_SUFFIX, folder + "/mod.rs"):
        if candidate in resolver.index.files:
            return candidate
    return None


def rust_lookup(resolver: Resolver, path: str, name: str) -> list[Result]:
    """``name`` used in ``path`` where no scope of the file binds it (see the module
    docstring)."""
    crate = crate_of(resolver, path)
    root = crate[1] if crate is not None else path
    if name == "crate":
        return [(("rmod", root, root), CONF_LOCAL, "import")]
    if name == "mod":
        return [(("rmod", path, root), CONF_LOCAL, "import")]
    if name == "super":
        parent = parent_module(resolver, path, root)
        return [(("rmod", parent, root), CONF_LOCAL, "import")] if parent is not None else []
    summary = resolver.summary(path, "*")
    external: list[str] = []
    for spec in summary["estar"] if summary is not None else ():  # use x::*
        for value, conf, method in resolver.eval_ref(path, "", spec, None):
            if value[0] == "rmod":
                found = module_attr(resolver, value, name)
                if found:
                    return weaken(found, conf, method)
            elif value[0] == "ext":
                external.append(value[1])
    found_crate = crates(resolver).get(name)
    if found_crate is not None:
        return [(("rmod", found_crate, found_crate), CONF_LOCAL, "import")]
    if name in PRELUDE:
        return [(("ext", PRELUDE[name]), CONF_EXTERNAL, "external")]
    if name[:1].islower():  # an external crate (or a module of one)
        return [(("ext", name), CONF_EXTERNAL, "external")]
    if len(external) == 1:  # the one external module imported with * holds it
        return [(("ext", f"{external[0]}.{name}"), CONF_EXTERNAL, "external")]
    return []


def module_attr(resolver: Resolver, value: Value, name: str) -> list[Result]:
    """Attribute ``name`` of the module value ``("rmod", file, crate root)``."""
    path, root = value[1], value[2]

    def compute() -> list[Result]:
        if name == "super":
            parent = parent_module(resolver, path, root)
            return [(("rmod", parent, root), CONF_LOCAL, "import")] if parent else []
        bindings = _names(resolver, path, name).get(name)
        declared: list[Binding] = [  # `mod x;` is the submodule, below
            b for b in bindings or () if not isinstance(b, ImportedModule)
        ]
        if declared:
            return resolver.eval_bindings(path, "", declared)
        found = submodule(resolver, path, root, name)
        if found is not None:
            return [(("rmod", found, root), CONF_LOCAL, "import")]
        summary = resolver.summary(path, "*")
        for spec in summary["estar"] if summary is not None else ():  # pub use x::*
            for inner, conf, method in resolver.eval_ref(path, "", spec, None):
                if inner[0] == "rmod" and inner[1] != path:
                    found_items = module_attr(resolver, inner, name)
                    if found_items:
                        return weaken(found_items, conf, method)
        return []

    return resolver.cached(("rmodattr", path, name), compute)


def rust_member(resolver: Resolver, path: str, qname: str, name: str) -> list[Result]:
    """Member ``name`` of the Rust type ``qname`` of ``path`` (see the module docstring)."""
    return resolver.cached(
        ("rsmember", path, qname, name), lambda: _member(resolver, path, qname, name)
    )


def _member(resolver: Resolver, path: str, qname: str, name: str) -> list[Result]:
    summary = resolver.summary(path, qname)
    info = summary["defs"].get(qname) if summary is not None else None
    if summary is None or info is None:
        return []
    member = f"{qname}.{name}"
    parent = qname.rpartition(".")[0]
    if info["kind"] == "interface":  # a trait: its method, or a supertrait's
        if member in summary["defs"]:
            return [(("def", path, member), CONF_INTERFACE, INTERFACE)]
        results: list[Result] = []
        for ref in info.get("bases", ()):
            for value, conf, method in resolver.eval_ref(path, parent, ref, info["line"]):
                if value[0] == "def" and value[1].endswith(RUST_SUFFIX):
                    results.extend(
                        weaken(rust_member(resolver, value[1], value[2], name), conf, method)
                    )
        return unique(results)
    folder = posixpath.dirname(path)
    siblings = [f for f in resolver.index.files_in(folder, RUST_SUFFIX) if f != path]
    for other in [path, *siblings]:  # impl blocks: the type's file, then its folder's
        found = resolver.summary(other, qname)
        if found is not None and member in found["defs"]:
            return [(("def", other, member), CONF_LOCAL, "method")]
    resolver.note_missing(MODULE_KEY + folder)
    scope = summary["scopes"].get(qname)
    bindings = scope["names"].get(name) if scope is not None else None
    if bindings:  # a field (after methods: a getter is named like its field)
        return resolver.eval_bindings(path, parent, bindings)
    for ref in info.get("implements", ()):  # a trait's provided method
        for value, conf, _method in resolver.eval_ref(path, parent, ref, info["line"]):
            if value[0] == "def" and value[1].endswith(RUST_SUFFIX):
                provided = resolver.scope(value[1], f"{value[2]}.{name}")
                if provided is not None and provided.get("method") != REQUIRED:
                    return [(("def", value[1], f"{value[2]}.{name}"), conf, "method")]
    return []
