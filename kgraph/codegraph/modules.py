"""Which file an import names, found from the set of parsed paths alone (no sys.path).

Python: every ``.py`` file is indexed under each dotted suffix of its path
(``src/pkg/mod.py`` -> ``mod``, ``pkg.mod``, ``src.pkg.mod``). A candidate is valid when the
folder above its dotted name is not itself a package (it could be a ``sys.path`` entry).
Among valid candidates the one whose root folder is the nearest ancestor of the importing
file wins (a script's own folder, a test folder); otherwise a candidate inside a package
(``src/`` layouts imported from ``tests/``). Relative imports are resolved on paths.

TS/JS: relative specifiers are joined to the importing file's folder and tried with the
usual extensions and ``index`` files; anything else is an external package.

Go: a package is a folder (:meth:`ModuleIndex.files_in`); import paths are read against
``go.mod`` by :mod:`kgraph.codegraph.langs.go_packages`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Final

PY_SUFFIXES: Final = (".py", ".pyi")
TS_EXTENSIONS: Final = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


def python_module_path(path: str) -> str:
    """``a/b/__init__.py`` -> ``a/b``; ``a/b/c.py`` -> ``a/b/c`` (the dotted path, slashed)."""
    stem = path.rsplit(".", 1)[0]
    if stem.endswith("/__init__") or stem == "__init__":
        stem = stem[: -len("__init__")].rstrip("/")
    return stem


def dotted_keys(path: str) -> list[tuple[str, str]]:
    """(dotted suffix, root folder) pairs a Python file can be imported as."""
    parts = python_module_path(path).split("/")
    if parts == [""]:
        return []
    keys = []
    for i in range(len(parts)):
        if all(p.isidentifier() for p in parts[i:]):
            keys.append((".".join(parts[i:]), "/".join(parts[:i])))
    return keys


class ModuleIndex:
    """Resolves imports to repo-relative paths; ``missing`` records what could not be found."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.files: set[str] = set(paths)
        self.py_keys: dict[str, list[tuple[str, str]]] = {}  # dotted -> [(path, root)]
        self.packages: set[str] = set()  # folders holding an __init__.py
        self.py_dirs: dict[str, list[tuple[str, str]]] = {}  # dotted -> [(folder, root)]
        folders: set[str] = {""}
        for path in self.files:
            if not path.endswith(PY_SUFFIXES):
                continue
            if path.endswith(("/__init__.py", "/__init__.pyi")) or path in ("__init__.py",):
                self.packages.add(posixpath.dirname(path))
            for key, root in dotted_keys(path):
                self.py_keys.setdefault(key, []).append((path, root))
            folder = posixpath.dirname(path)
            while folder and folder not in folders:
                folders.add(folder)
                folder = posixpath.dirname(folder)
        self.folders = folders
        # Memoised lookups (a binding is evaluated many times).
        self._absolute: dict[tuple[str, str], str | None] = {}
        self._relative: dict[tuple[str, str, int], str | None] = {}
        self._by_suffix: dict[str, dict[str, list[str]]] = {}
        for folder in folders:  # namespace packages (no __init__.py) are importable too
            if folder in self.packages:
                continue
            parts = folder.split("/")
            for i in range(len(parts)):
                if all(p.isidentifier() for p in parts[i:]):
                    self.py_dirs.setdefault(".".join(parts[i:]), []).append(
                        (folder, "/".join(parts[:i]))
                    )

    # -- Python -------------------------------------------------------------------------
    def python_absolute(self, importer: str, dotted: str) -> str | None:
        """The file (or namespace folder, suffixed ``/``) ``import dotted`` means, or None."""
        key = (importer, dotted)  # the importer itself is never its own candidate
        if key not in self._absolute:
            self._absolute[key] = self._python_absolute(importer, dotted)
        return self._absolute[key]

    def _python_absolute(self, importer: str, dotted: str) -> str | None:
        candidates = [c for c in self.py_keys.get(dotted, ()) if c[1] not in self.packages]
        if not candidates:
            folders = [c for c in self.py_dirs.get(dotted, ()) if c[1] not in self.packages]
            best = self._best(importer, folders, dotted, folder=True)
            return best + "/" if best is not None else None
        return self._best(importer, candidates, dotted)

    def _best(
        self, importer: str, candidates: list[tuple[str, str]], dotted: str, folder: bool = False
    ) -> str | None:
        if not candidates:
            return None
        importer_dir = posixpath.dirname(importer)
        best: tuple[int, str] | None = None
        for path, root in candidates:
            if path == importer:
                continue
            if root == "" or importer_dir == root or importer_dir.startswith(root + "/"):
                depth = root.count("/") + (1 if root else 0)
                if best is None or depth > best[0] or (depth == best[0] and path < best[1]):
                    best = (depth, path)
        if best is not None:
            return best[1]
        # Not under the same root: accept a module that lives in a package (src layouts).
        in_package = sorted(
            (root.count("/"), path)
            for path, root in candidates
            if path != importer
            and ("." in dotted or (not folder and path.endswith(("__init__.py", "__init__.pyi"))))
        )
        return in_package[0][1] if in_package else None

    def python_relative(self, importer: str, dotted: str, level: int) -> str | None:
        """``from ..a.b import x`` in ``importer`` -> the file/folder of ``..a.b``, or None."""
        key = (posixpath.dirname(importer), dotted, level)
        if key not in self._relative:
            self._relative[key] = self._python_relative(importer, dotted, level)
        return self._relative[key]

    def _python_relative(self, importer: str, dotted: str, level: int) -> str | None:
        folder = posixpath.dirname(importer)
        for _ in range(level - 1):
            folder = posixpath.dirname(folder)
        target = posixpath.join(folder, *dotted.split(".")) if dotted else folder
        return self.python_path(target)

    def python_path(self, target: str) -> str | None:
        """A slashed module path -> its file, or its folder + ``/`` for a namespace package."""
        for candidate in (
            target + ".py",
            target + "/__init__.py",
            target + ".pyi",
            target + "/__init__.pyi",
        ):
            if candidate.lstrip("/") in self.files:
                return candidate.lstrip("/")
        if target in self.folders:
            return target + "/"
        return None

    def submodule(self, module: str, name: str) -> str | None:
        """``pkg/__init__.py`` or ``pkg/`` + ``name`` -> ``pkg/name.py`` (or package)."""
        folder = module.rstrip("/") if module.endswith("/") else posixpath.dirname(module)
        if not module.endswith("/") and not module.endswith(("__init__.py", "__init__.pyi")):
            return None
        return self.python_path(posixpath.join(folder, name) if folder else name)

    # -- folders (a Go package is one) -------------------------------------------------
    def by_folder(self, suffix: str) -> dict[str, list[str]]:
        """Folder -> the files directly in it whose names end with ``suffix``, sorted;
        built on first use for each suffix (a Python repository never asks)."""
        found = self._by_suffix.get(suffix)
        if found is None:
            found = {}
            for path in sorted(self.files):
                if path.endswith(suffix):
                    found.setdefault(posixpath.dirname(path), []).append(path)
            self._by_suffix[suffix] = found
        return found

    def files_in(self, folder: str, suffix: str) -> list[str]:
        """The files directly in ``folder`` whose names end with ``suffix``, sorted."""
        return self.by_folder(suffix).get(folder, [])

    # -- TS/JS --------------------------------------------------------------------------
    def script_module(self, importer: str, specifier: str) -> str | None:
        """``./util`` from ``src/a.ts`` -> ``src/util.ts`` (first that exists), or None."""
        if not specifier.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
        if base.startswith("../"):
            return None
        if base in self.files:
            return base
        stem = base
        for js, ts in ((".js", ".ts"), (".jsx", ".tsx"), (".mjs", ".mts"), (".cjs", ".cts")):
            if base.endswith(js):  # TS sources import "./x.js" meaning ./x.ts
                stem = base[: -len(js)]
                if stem + ts in self.files:
                    return stem + ts
        for extension in TS_EXTENSIONS:
            if stem + extension in self.files:
                return stem + extension
        for extension in TS_EXTENSIONS:
            if f"{stem}/index{extension}" in self.files:
                return f"{stem}/index{extension}"
        return None


def file_keys(path: str) -> set[str]:
    """Every import key that could name ``path`` (what an added file may newly satisfy)."""
    keys = {key for key, _root in dotted_keys(path)} if path.endswith(PY_SUFFIXES) else set()
    stem = path
    for extension in sorted(TS_EXTENSIONS + PY_SUFFIXES, key=len, reverse=True):
        if path.endswith(extension):
            stem = path[: -len(extension)]
            break
    keys.add(stem)
    if stem.endswith("/index") or stem.endswith("/__init__"):
        keys.add(stem.rsplit("/", 1)[0])
    if path.endswith(".go"):  # a Go package's files are found by folder
        keys.add("go:" + posixpath.dirname(path))
    elif path.endswith(".java"):  # a Java package's, by a folder ending like its path
        folder = posixpath.dirname(path)
        keys.update("java:" + folder.split("/", i)[-1] for i in range(folder.count("/") + 1))
    elif path.endswith(".rs"):  # a Rust module's file, and its folder's (impl blocks)
        keys.update(("rs:" + path[:-3], "rs:" + posixpath.dirname(path)))
        if path.endswith("/mod.rs"):
            keys.add("rs:" + path[: -len("/mod.rs")])
    elif posixpath.basename(path) == "Cargo.toml":
        keys.add("Cargo.toml")
    elif posixpath.basename(path) == "go.mod":
        keys.add("go.mod")
    return keys
