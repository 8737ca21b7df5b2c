"""What the :class:`~kgraph.codegraph.resolve.Resolver` reads: the files' summaries,
loaded on demand, each read recorded as a dependency; the call sites indexed by key; and
the facts of a definition or a scope its helpers ask for (a def's kind, a file's language,
the class a method is in).

The base class of the resolver, apart from its evaluation of names and refs: every read of
a summary passes through :meth:`SummaryReader.summary`, so what a file's resolution
depends on (the reads :class:`~kgraph.codegraph.memo.Memo` keeps with each result) is
recorded in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from kgraph.codegraph.changes import site_entries
from kgraph.codegraph.memo import Memo
from kgraph.codegraph.modules import ModuleIndex
from kgraph.codegraph.summary import Scope, Summary, scope_kind
from kgraph.codegraph.values import Value


class Sites(Protocol):
    """Where call sites are: files by key, and a file's sites (cached by the owner: the
    worker's index shares them with every resolver it serves)."""

    def files(self, key: str) -> list[str]: ...

    def entries(
        self, path: str, summary: Summary, only: str | None = None
    ) -> dict[str, list[tuple[str, str, int]]]: ...


class NoSites:
    """No call sites known (a resolver over a single file's summaries, in tests)."""

    def files(self, key: str) -> list[str]:
        return []

    def entries(
        self, path: str, summary: Summary, only: str | None = None
    ) -> dict[str, list[tuple[str, str, int]]]:
        return site_entries(summary, only)


class SummaryReader(Memo):
    """Summaries loaded on demand by ``load(path)``, and call sites from ``sites``.

    ``consulted`` (per :meth:`begin`) collects every (file, top-level name) an evaluation
    read, cached work included: a file needs re-resolving when one of the names it read in
    another file changes (``""``: only the file's existence; ``"*"``: its star imports;
    ``"="``: the module scope's arguments and literals). Imports that matched no file are
    reads of :data:`~kgraph.codegraph.memo.MISSING_IMPORT`; call-site keys whose sites were
    read, of :data:`~kgraph.codegraph.memo.CALL_SITES`. Caching, and cycles: :mod:`.memo`.
    """

    def __init__(
        self,
        index: ModuleIndex,
        load: Callable[[str], Summary | None],
        sites: Sites | None = None,
    ) -> None:
        super().__init__()
        self.index = index
        self._load = load
        self.sites: Sites = sites or NoSites()
        self._summaries: dict[str, Summary | None] = {}

    # -- summaries and call sites -------------------------------------------------------
    def site_files(self, key: str) -> list[str]:
        """The files with call sites under ``key`` (see :func:`.changes.site_key`)."""
        return self.sites.files(key)

    def site_entries(
        self, path: str, only: str | None = None
    ) -> dict[str, list[tuple[str, str, int]]]:
        """A file's call sites with arguments, by key (see :func:`.changes.site_entries`);
        ``only``: at least those of that key."""
        summary = self.summary(path)
        return self.sites.entries(path, summary, only) if summary is not None else {}

    def summary(self, path: str, name: str | None = None) -> Summary | None:
        """A file's summary; ``name``: the (qualified) name being read, for dependencies
        (None: nothing that can change, such as the file's language)."""
        if name is not None:
            self._reads[-1].add((path, name.partition(".")[0]))
        try:
            return self._summaries[path]
        except KeyError:
            found = self._summaries[path] = self._load(path)
            return found

    def scope(self, path: str, scope_name: str) -> Scope | None:
        """A scope of a file, read as a dependency (the module scope's own parts: ``=``)."""
        summary = self.summary(path, scope_name or "=")
        return summary["scopes"].get(scope_name) if summary is not None else None

    def forget(self, paths: Iterable[str]) -> None:
        """Drop cached summaries and results (after files changed)."""
        for path in paths:
            self._summaries.pop(path, None)
        self.clear_cache()

    # -- facts of definitions and scopes ------------------------------------------------
    def def_kind(self, value: Value) -> str | None:
        summary = self.summary(value[1], value[2])
        info = summary["defs"].get(value[2]) if summary is not None else None
        return info["kind"] if info is not None else None

    def _classmethod(self, value: Value) -> bool:
        scope = self.scope(value[1], value[2]) if value[0] == "def" else None
        return scope is not None and scope.get("method") == "class"

    def _lang(self, path: str) -> str:
        summary = self.summary(path)
        return summary["lang"] if summary is not None else "python"

    def enclosing_class(self, path: str, scope_name: str) -> tuple[str, bool] | None:
        """(class qname, inside an instance method) for a method scope, else None."""
        summary = self.summary(path, scope_name)
        if summary is None:
            return None
        scopes = summary["scopes"]
        current = scope_name
        while current in scopes and current:
            scope = scopes[current]
            parent = scope["parent"] or ""
            if scope["kind"] == "function" and scope_kind(summary, parent) == "class":
                return parent, scope.get("method") != "class"
            if scope["kind"] == "class":
                return current, False
            current = parent
        return None
