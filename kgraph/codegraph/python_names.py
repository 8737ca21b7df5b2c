"""What one file's names may hold, as the Python summariser reads it: which names may hold
a function (defs, imports, names assigned one, parameters the file calls by that name),
which are imported names and classes, and a name's bindings by LEGB so far.

The base of :class:`~kgraph.codegraph.python_refs.RefBuilder`, apart from it: these are
facts of names, kept current as the summariser binds them (:meth:`FileNames.note_binding`),
and the builder reads them to judge whether an expression may be a function, so whether
a call's arguments or a literal's items are worth keeping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgraph.codegraph.summary import Binding, Scope

if TYPE_CHECKING:
    from kgraph.codegraph.summary import Definition


class FileNames:
    """The names of one file's scopes and definitions, and what they may hold."""

    def __init__(self, scopes: dict[str, Scope], defs: dict[str, Definition]) -> None:
        self.scopes = scopes
        self.defs = defs
        # Names that may hold a function anywhere in the file (scopes are not told apart:
        # a name is cheap to keep, a lookup per argument is not): defs, imports, names
        # assigned a function, parameters the file calls by that name.
        self.function_names: set[str] = set()
        self.parameters: set[str] = set()  # every parameter name but self/cls
        self.modules: set[str] = set()  # imported names (modules, or what they hold)
        self.classes: set[str] = set()  # names of the file's classes
        self.methods: set[str] | None = None  # the file's function names, made when needed

    def kind_of(self, qname: str) -> str | None:
        info = self.defs.get(qname)
        return info["kind"] if info is not None else None

    def note_binding(self, name: str, binding: Binding) -> None:
        """Keep :attr:`function_names` current as the summariser binds names: defs,
        imports, and names assigned a function, a literal holding one or a call with
        arguments that may (``x = wrap(f)``)."""
        tag = binding[0]
        if tag in ("def", "from", "mod"):
            self.function_names.add(name)
            if tag == "mod":
                self.modules.add(name)
            elif tag == "from":
                self.modules.add(name)  # a module, a class or a function: all have attributes
            elif self.kind_of(str(binding[1])) == "class":
                self.classes.add(name)
        elif tag == "val":
            ref = str(binding[1])
            if (
                ref.startswith("@")
                or "(#" in ref
                or (ref.startswith("<#") and not ref.startswith("<#>"))
            ):
                self.function_names.add(name)

    def bindings_of(self, name: str, scope: str) -> tuple[str, list[Binding]] | None:
        """(scope, bindings) of ``name`` by LEGB from ``scope`` (class bodies skipped from
        nested scopes), as far as the file has been read."""
        current, first = scope, True
        while True:
            data = self.scopes.get(current)
            if data is None:
                return None
            if first or data["kind"] != "class":
                found = data["names"].get(name)
                if found:
                    return current, found
            if data["kind"] == "module":
                return None
            current, first = data["parent"] or "", False
