"""Java packages for the :class:`~kgraph.codegraph.resolve.Resolver`: what an import names,
the types a file sees without one, and which calls are virtual.

- **Packages.** A package ``a.b`` is the ``.java`` files that declare it, in the folders
  whose path ends with ``a/b`` (any source root: ``src/main/java/a/b``, ``src/a/b``). A
  package value is ``("jpkg", "a.b")``; its attribute ``C`` is the top-level type ``C``
  of one of its files (``C.java`` first). ``import a.b.C`` reads it so; an import of a
  name the repository does not declare is external (``("ext", "java.util.List")``).
- **Names** no scope of the file binds (the summariser has already made members
  ``this.x`` and nested types ``Outer.T``): a type of the file's package, then of its
  on-demand imports (``import a.b.*``), then ``java.lang``'s (``String``, ``Math``...);
  a type found nowhere else is the one external on-demand import's, if there is one.
- **Virtual calls.** An instance method found for an instance (``x.m()``, ``this.m()``)
  may be overridden below the class it is found in: its edge says ``virtual``, with a
  confidence no other step goes under, and the overrides are added when the graph is
  read (:mod:`.java_dispatch`). Constructors, static methods and ``super.m()`` are exact.

A folder gaining a ``.java`` file re-resolves the files that looked a package up in a
folder ending like it (:data:`FOLDER_KEY`, a "missing import" key: see
:func:`kgraph.codegraph.modules.file_keys`).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Final

from kgraph.codegraph.summary import ImportedModule
from kgraph.codegraph.values import CONF_EXTERNAL, CONF_LOCAL, Result, Value, weaken

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

JAVA_SUFFIX: Final = ".java"
PACKAGE_NAME: Final = "package"  # the module-scope name holding a file's package
FOLDER_KEY: Final = "java:"
CONF_VIRTUAL: Final = 0.8
VIRTUAL: Final = "virtual"
# java.lang's public types: visible in every file without an import.
JAVA_LANG: Final = frozenset(
    """
    AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException
    ArrayStoreException AssertionError AutoCloseable Boolean Byte CharSequence Character
    Class ClassCastException ClassLoader ClassNotFoundException CloneNotSupportedException
    Cloneable Comparable Deprecated Double Enum Error Exception Float FunctionalInterface
    IllegalAccessException IllegalArgumentException IllegalMonitorStateException
    IllegalStateException IndexOutOfBoundsException InheritableThreadLocal
    InstantiationException Integer InterruptedException Iterable LinkageError Long Math
    NegativeArraySizeException NoSuchFieldException NoSuchMethodException
    NullPointerException Number NumberFormatException Object OutOfMemoryError Override
    Package Process ProcessBuilder Readable Record ReflectiveOperationException Runnable
    Runtime RuntimeException SafeVarargs SecurityException Short StackOverflowError
    StackTraceElement StrictMath String StringBuffer StringBuilder
    StringIndexOutOfBoundsException SuppressWarnings System Thread ThreadDeath ThreadGroup
    ThreadLocal Throwable TypeNotPresentException UnsupportedOperationException
    VirtualMachineError Void
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def package_of(resolver: Resolver, path: str) -> str:
    """The package a Java file declares ("" for the default package)."""
    summary = resolver.summary(path, PACKAGE_NAME)
    names = summary["scopes"][""]["names"].get(PACKAGE_NAME) if summary is not None else None
    first = names[0] if names else None
    return first.dotted if isinstance(first, ImportedModule) else ""


def package_files(resolver: Resolver, dotted: str) -> list[str]:
    """The files declaring package ``dotted`` (see the module docstring)."""

    def compute() -> list[str]:
        suffix = dotted.replace(".", "/")
        resolver.note_missing(FOLDER_KEY + suffix)
        folders = resolver.index.by_folder(JAVA_SUFFIX)
        return [
            path
            for folder, paths in folders.items()
            if folder == suffix or folder.endswith("/" + suffix) or not suffix
            for path in paths
            if package_of(resolver, path) == dotted
        ]

    cut: list[str] = []
    return resolver.memo(("jpkgfiles", dotted), compute, cut)


def package_attr(resolver: Resolver, value: Value, name: str) -> list[Result]:
    """The top-level type ``name`` of the package value ``("jpkg", dotted)``."""
    dotted = value[1]

    def compute() -> list[Result]:
        files = package_files(resolver, dotted)
        own = f"{name}{JAVA_SUFFIX}"
        for path in sorted(files, key=lambda p: posixpath.basename(p) != own):
            summary = resolver.summary(path, name)
            exported = summary["exports"].get(name) if summary is not None else None
            if exported is not None:
                return resolver.eval_binding(path, "", exported)
        return []

    return resolver.cached(("jpkgattr", dotted, name), compute)


def java_import(resolver: Resolver, importer: str, spec: str) -> list[Result]:
    """What an import's module names: a package of the repository, else one of its types
    (``a.b.C``, for ``import static a.b.C.m``), else something external."""
    if package_files(resolver, spec):
        return [(("jpkg", spec), CONF_LOCAL, "import")]
    package, _, name = spec.rpartition(".")
    if package:
        found = [r for r in package_attr(resolver, ("jpkg", package), name) if r[0][0] == "def"]
        if found:
            return found
    return [(("ext", spec), CONF_EXTERNAL, "external")]


def java_lookup(resolver: Resolver, path: str, name: str) -> list[Result]:
    """``name`` used in ``path`` where no scope of the file binds it."""
    found = package_attr(resolver, ("jpkg", package_of(resolver, path)), name)
    if found:
        return found
    summary = resolver.summary(path, "*")
    external: list[str] = []
    for spec in summary["estar"] if summary is not None else ():  # import a.b.*
        for value, conf, method in java_import(resolver, path, spec):
            if value[0] in ("jpkg", "def"):
                found = resolver.attr(value, name)
                if found:
                    return weaken(found, conf, method)
            elif value[0] == "ext":
                external.append(value[1])
    if name in JAVA_LANG:
        return [(("ext", f"java.lang.{name}"), CONF_EXTERNAL, "external")]
    if len(external) == 1 and name[:1].isupper():  # the one external package it may be in
        return [(("ext", f"{external[0]}.{name}"), CONF_EXTERNAL, "external")]
    return []


def virtual(resolver: Resolver, path: str, member: str) -> list[Result]:
    """The member ``member`` of ``path`` found for an instance: a virtual call of a
    method, unless a constructor or static."""
    exact: list[Result] = [(("def", path, member), CONF_LOCAL, "mro")]
    if member.endswith(".constructor") or resolver.def_kind(("def", path, member)) != "method":
        return exact
    scope = resolver.scope(path, member)
    if scope is not None and scope.get("method") == "static":
        return exact
    return [(("def", path, member), CONF_VIRTUAL, VIRTUAL)]
