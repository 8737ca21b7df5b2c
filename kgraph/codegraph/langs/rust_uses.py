"""Rust's module declarations, for the summariser (:mod:`.rust_parse`): ``mod x;`` (the
name is the submodule, found by path), an inline ``mod x { .. }`` (a namespace of the
file), ``use`` lists, aliases and globs (bindings to paths, import records, star imports);
and a crate's ``Cargo.toml`` (its name and library path, which :mod:`.rust_modules`
reads).
"""

from __future__ import annotations

import tomllib

from tree_sitter import Node

from kgraph.codegraph.langs.rust_modules import CRATE_NAME, LIB_PATH
from kgraph.codegraph.langs.rust_refs import RustExpressions
from kgraph.codegraph.summary import (
    UNKNOWN,
    Import,
    ImportedModule,
    Summary,
    add_binding,
    assigned,
    new_scope,
    new_summary,
)


class RustModuleItems(RustExpressions):
    """The handlers of a file's ``mod`` and ``use`` items (a base of
    :class:`~.rust_parse.RustSummariser`)."""

    def on_mod(self, node: Node, scope: str) -> None:
        """An inline ``mod name { ... }``: a namespace of the file (``mod name;`` is a file
        of its own, found by path)."""
        body = node.child_by_field_name("body")
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        if body is None:  # `mod x;`: the name is the submodule (a path may start with it)
            line = node.start_point[0] + 1
            add_binding(self.scopes[scope], name, ImportedModule("mod", f"mod.{name}", line))
            return
        qname = f"{scope}.{name}" if scope else name
        self.spans.enter(node, qname, body.start_byte)
        namespace = self.scopes.setdefault(qname, new_scope("function", scope))
        namespace["method"] = "mod"

    def on_use(self, node: Node, scope: str) -> None:
        argument = node.child_by_field_name("argument")
        if argument is not None:
            self._use(argument, "", scope, node.start_point[0] + 1)

    def _use(self, node: Node, prefix: str, scope: str, line: int) -> None:
        kind = node.type
        target = self.scopes[scope]
        if kind == "scoped_use_list":
            base = node.child_by_field_name("path")
            inner = self._join(prefix, self.path(base, "")) if base is not None else prefix
            listed = node.child_by_field_name("list")
            for item in listed.named_children if listed is not None else ():
                self._use(item, inner, scope, line)
        elif kind == "use_list":
            for item in node.named_children:
                self._use(item, prefix, scope, line)
        elif kind == "use_as_clause":
            original = node.child_by_field_name("path")
            full = self._join(prefix, self.path(original, "")) if original is not None else ""
            alias = self.text(node.child_by_field_name("alias"))
            if alias and alias != "_" and full and UNKNOWN not in full:
                add_binding(target, alias, assigned(full, line))
                self._import(full, line)
        elif kind == "use_wildcard":
            used = node.named_children[0] if node.named_children else None
            full = self._join(prefix, self.path(used, "")) if used is not None else prefix
            if full and UNKNOWN not in full and (scope == "" or self._namespace(scope) == scope):
                spec = "mod" if scope and full == "super" else full  # an inline module's super
                self.summary["estar"].append(spec)
                self.summary["imports"].append(Import("", spec, 0, ["*"], line))
        elif kind in ("identifier", "scoped_identifier", "self", "crate", "super"):
            full = self._join(prefix, self.path(node, ""))
            name = full.rpartition(".")[2]
            if kind == "self" or name == "mod":  # use a::b::{self}: binds b
                full = prefix
                name = prefix.rpartition(".")[2]
            if name and UNKNOWN not in full and name not in ("crate", "super"):
                add_binding(target, name, assigned(full, line))
                self._import(full, line)

    def _import(self, full: str, line: int) -> None:
        """The import record of ``use a::b::C``: module ``a.b``, name ``C``."""
        module, _, name = full.rpartition(".")
        self.summary["imports"].append(
            Import("", module, 0, [name], line) if module else Import("", full, 0, [], line)
        )

    @staticmethod
    def _join(prefix: str, path: str) -> str:
        if path == "mod" and prefix:
            return prefix
        return f"{prefix}.{path}" if prefix else path


def parse_cargo(source: bytes) -> Summary:
    """A ``Cargo.toml``: the crate's name (``[lib] name``, else ``[package] name``) and its
    library's path, as module-scope names (:mod:`.rust_modules` reads them)."""
    summary = new_summary("cargo")
    try:
        manifest = tomllib.loads(source.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        summary["errors"] = 1
        return summary
    names = summary["scopes"][""]["names"]
    package = manifest.get("package")
    lib = manifest.get("lib")
    name = (lib or {}).get("name") or (package or {}).get("name")
    if isinstance(name, str):
        names[CRATE_NAME] = [ImportedModule("mod", name, 1)]
    path = (lib or {}).get("path")
    if isinstance(path, str):
        names[LIB_PATH] = [ImportedModule("mod", path, 1)]
    return summary
