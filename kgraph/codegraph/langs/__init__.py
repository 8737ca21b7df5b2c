"""The languages beyond Python and TypeScript/JavaScript: a summariser and the resolution
rules each needs, one module per stage and language.

Each language turns a file into the same :class:`~kgraph.codegraph.summary.Summary` the
Python and TS/JS summarisers make (the language is the summary's ``lang``, and the
``graph_files.language`` column), so the store, the incremental parse, the queries and the
MCP tools take it as they are. What differs is resolution, where a language's scoping is
not Python's; the shared resolver asks these modules at a few points:

- Go (``go_parse`` and ``go_refs``, ``go_packages``, ``go_dispatch``): a package is a
  folder, its package-level names shared by its files; imports name packages by import
  path, read against the module path of ``go.mod`` (a file of its own, language
  ``gomod``); methods are declared apart from their type, in any file of its package;
  embedded fields promote their members; interfaces are satisfied implicitly, so what runs
  a call through an interface is found when the graph is read (:mod:`.go_dispatch`), as
  overrides are.
- Java (``java_parse`` and ``java_refs``, ``java_packages``, ``java_dispatch``): a package
  is the files declaring it, in folders ending with its path (any source root); a
  method's scope knows its locals, so a name it does not declare is a member (``this.x``)
  or a type; an instance method call is virtual: the overrides below its class
  (``extends`` and ``implements`` edges) are found when the graph is read
  (:mod:`.java_dispatch`).
- Rust (``rust_parse`` with ``rust_refs``, ``rust_uses`` and ``rust_bindings``,
  ``rust_modules``, ``rust_dispatch``): crates from ``Cargo.toml`` (language ``cargo``),
  modules from the files ``mod x;`` finds, paths (``crate::``, ``super::``, ``use``)
  followed through them; ``impl`` blocks give a type its methods and its traits
  (``implements`` edges, wherever the block is); a call through a trait is dispatched to
  its implementations when the graph is read (:mod:`.rust_dispatch`).

Each summariser is a class over a base that turns the language's expressions into refs
(``*_refs``), as the Python summariser's are (:mod:`kgraph.codegraph.python_refs`), and
what they do alike lives once in :mod:`.common`. The summarisers load on first use (a
Python project never imports a Go grammar).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the queries import this package (dispatch): no summariser for them
    from kgraph.codegraph.summary import Summary

GO_SUFFIX: Final = ".go"
JAVA_SUFFIX: Final = ".java"
RUST_SUFFIX: Final = ".rs"
# The extensions of the source files of these languages (a module is named without it).
SOURCE_SUFFIXES: Final = (GO_SUFFIX, JAVA_SUFFIX, RUST_SUFFIX)
# Languages whose files this package summarises, by the walker's language name.
LANGUAGES: Final = frozenset({"go", "gomod", "java", "rust", "cargo"})


def parse_source(language: str, data: bytes) -> Summary:
    """Summarise one file of one of :data:`LANGUAGES`."""
    if language == "go":
        from kgraph.codegraph.langs.go_parse import parse_go

        return parse_go(data)
    if language == "gomod":
        from kgraph.codegraph.langs.go_parse import parse_gomod

        return parse_gomod(data)
    if language == "java":
        from kgraph.codegraph.langs.java_parse import parse_java

        return parse_java(data)
    if language == "rust":
        from kgraph.codegraph.langs.rust_parse import parse_rust

        return parse_rust(data)
    if language == "cargo":
        from kgraph.codegraph.langs.rust_uses import parse_cargo

        return parse_cargo(data)
    raise ValueError(f"no summariser for {language!r}")
