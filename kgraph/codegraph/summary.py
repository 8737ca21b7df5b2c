"""The per-file parse summary: what a worker returns and ``graph_summaries`` stores, so a
file can be re-resolved later without re-parsing it. Independent of the file's path.

Dict-shaped parts are TypedDicts (:class:`Summary`, :class:`Scope`, :class:`Definition`):
JSON objects with only the keys that have something in them. Records are NamedTuples,
stored as JSON arrays (compact: :mod:`~kgraph.codegraph.summary_codec` encodes and
rebuilds them). A *binding* says what a name may hold, from a given line on; the first
item of its array is its tag:

=========  ===============================================================================
``def``    :class:`Defined`: a def, class or type alias (``qname``, qualified in the file)
``mod``    :class:`ImportedModule`: ``import a.b`` binds ``a`` to module ``a``
``from``   :class:`ImportedName`: ``from module import name`` (``level``: leading dots)
``val``    :class:`Assigned`: the value of an expression, a *ref* (see :mod:`.refs`)
``ann``    :class:`Annotated`: an instance of the class a ref names (annotations, except)
``param``  :class:`Parameter`: the function's parameter ``params[position]``
``unk``    :class:`Unknown`: something that cannot be followed
=========  ===============================================================================

Refs are evaluated in the scope they were written in: ``(#N)`` and ``<#N>`` in a ref are
that scope's ``args[N]`` (a call's arguments) and ``containers[N]`` (a literal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, NamedTuple, NotRequired, TypedDict

UNKNOWN: Final = "?"


class Defined(NamedTuple):
    tag: Literal["def"]
    qname: str
    line: int


class ImportedModule(NamedTuple):
    tag: Literal["mod"]
    dotted: str
    line: int


class ImportedName(NamedTuple):
    tag: Literal["from"]
    module: str
    level: int
    name: str
    line: int


class Assigned(NamedTuple):
    tag: Literal["val"]
    ref: str
    line: int


class Annotated(NamedTuple):
    tag: Literal["ann"]
    ref: str
    line: int


class Parameter(NamedTuple):
    tag: Literal["param"]
    position: int  # in the scope's params
    line: int


class Unknown(NamedTuple):
    tag: Literal["unk"]
    line: int


Binding = Defined | ImportedModule | ImportedName | Assigned | Annotated | Parameter | Unknown
# tuple.__new__(cls, fields) builds a NamedTuple without its Python-level __new__ (see
# defined); the fields are trusted: this code makes them.
_new = tuple.__new__


def defined(qname: str, line: int) -> Defined:
    """A :class:`Defined` binding (the factories build records without the NamedTuple's
    Python-level constructor: summarisers make one for every name of every file)."""
    return _new(Defined, ("def", qname, line))


def assigned(ref: str, line: int) -> Assigned:
    return _new(Assigned, ("val", ref, line))


def annotated(ref: str, line: int) -> Annotated:
    return _new(Annotated, ("ann", ref, line))


def imported_name(module: str, level: int, name: str, line: int) -> ImportedName:
    return _new(ImportedName, ("from", module, level, name, line))


def parameter(position: int, line: int) -> Parameter:
    return _new(Parameter, ("param", position, line))


def unknown(line: int) -> Unknown:
    return _new(Unknown, ("unk", line))


class ParamSpec(NamedTuple):
    """A parameter: ``kind`` is ``pos`` (positional or keyword), ``posonly``, ``kwonly``,
    ``star`` (``*args``) or ``dstar`` (``**kwargs``); ``default`` a ref evaluated in the
    enclosing scope on the def's line ("" for none). Stored compactly in the scope (see
    :func:`param_specs`): every function has some, and few are ever needed."""

    name: str
    kind: str
    default: str


# ParamSpec.kind -> the prefix of its name in Scope.params
_PARAM_PREFIXES = {"pos": "", "posonly": "/", "kwonly": "=", "star": "*", "dstar": "**"}


def param_entry(name: str, kind: str) -> str:
    return _PARAM_PREFIXES[kind] + name


def param_specs(scope: Scope) -> list[ParamSpec]:
    """A function's parameters from their stored form: names with a prefix for their kind
    (``/x`` positional-only, ``=x`` keyword-only, ``*x``, ``**x``) and defaults by
    position."""
    defaults = scope.get("defaults", {})
    specs = []
    for position, entry in enumerate(scope.get("params", ())):
        if entry.startswith("**"):
            name, kind = entry[2:], "dstar"
        elif entry[:1] in ("/", "=", "*"):
            name, kind = entry[1:], {"/": "posonly", "=": "kwonly", "*": "star"}[entry[0]]
        else:
            name, kind = entry, "pos"
        specs.append(ParamSpec(name, kind, defaults.get(str(position), "")))
    return specs


class ScopedBinding(NamedTuple):
    """A binding made in another scope (``self.x = v`` in a method: ``v`` is evaluated
    there)."""

    scope: str
    binding: Binding


class Arguments(NamedTuple):
    """A call's arguments as refs (``?`` where nothing can be followed), kept when one of
    them may be a function; ``decorator``: the call applies a decorator to a def."""

    positional: list[str]
    keywords: dict[str, str]
    decorator: bool


class Container(NamedTuple):
    """A list/tuple/set/dict literal or comprehension holding something worth following:
    ``keys[i]`` (a str or int, None for unknown or after a ``*spread``) and ``refs[i]``."""

    kind: str
    keys: list[str | int | None]
    refs: list[str]
    line: int  # where the items are evaluated


class Store(NamedTuple):
    """``target[key] = value`` (key None: unknown), ``target.append(value)``..."""

    target: str
    key: str | int | None
    value: str
    line: int


class Import(NamedTuple):
    scope: str
    module: str
    level: int
    names: list[str]  # "*" for a star import; empty for `import module`
    line: int


class StarImport(NamedTuple):
    module: str
    level: int


class Definition(TypedDict):
    kind: str  # class|function|method|variable|type|interface|enum
    line: int
    end: int
    exported: NotRequired[bool]
    bases: NotRequired[list[str]]  # refs of base classes (TS: and extended interfaces)
    implements: NotRequired[list[str]]  # TS
    decorators: NotRequired[list[str]]  # as written, `@a.b(x)` -> "a.b"
    fixture: NotRequired[str]  # a pytest fixture's name (see pytest_fixtures)


class Scope(TypedDict):
    kind: str  # module|class|function
    parent: str | None  # qualified name of the enclosing scope ("" is the module)
    names: dict[str, list[Binding]]
    params: NotRequired[list[str]]  # see param_specs
    defaults: NotRequired[dict[str, str]]  # parameter position -> default ref
    self_name: NotRequired[str]  # a method's first parameter
    method: NotRequired[str]  # "static" | "class" (absent: an instance method)
    returns: NotRequired[list[Binding]]
    yields: NotRequired[list[Binding]]  # present: a generator function
    attrs: NotRequired[dict[str, list[ScopedBinding]]]  # a class's instance attributes
    args: NotRequired[list[Arguments]]
    containers: NotRequired[list[Container]]
    stores: NotRequired[list[Store]]
    globals: NotRequired[list[str]]
    nonlocals: NotRequired[list[str]]
    # TS/JS: what ``this`` is in a function where it is not its class's instance: a ref
    # evaluated in the parent scope, ``?`` for unknown (see kgraph.codegraph.script_functions)
    receiver: NotRequired[str]


class Summary(TypedDict):
    lang: str  # python | typescript | tsx | javascript | go | gomod (kgraph.codegraph.langs)
    errors: int  # ERROR nodes seen
    failed: NotRequired[str]  # the summariser raised: why
    defs: dict[str, Definition]
    scopes: Mapping[str, Scope]  # "" is the module
    calls: dict[str, list[str | int]]  # scope -> [call ref, line, call ref, line, ...]
    imports: list[Import]
    star: list[StarImport]
    all: list[str] | None  # __all__
    exports: dict[str, Binding]  # TS/JS: exported name -> binding
    estar: list[str]  # TS/JS: `export * from` modules
    impls: NotRequired[list[list[str | int]]]  # Rust: [type ref, trait ref, line] of impls


class Call(NamedTuple):
    scope: str
    ref: str  # the call expression's ref: the callee's ref and a call operation
    line: int


def new_summary(lang: str, scopes: dict[str, Scope] | None = None) -> Summary:
    """An empty summary; ``scopes``: the dict its summariser fills (the module's scope is
    added to it)."""
    scopes = {} if scopes is None else scopes
    scopes[""] = new_scope("module", None)
    return {
        "lang": lang,
        "errors": 0,
        "defs": {},
        "scopes": scopes,
        "calls": {},
        "imports": [],
        "star": [],
        "all": None,
        "exports": {},
        "estar": [],
    }


def new_scope(kind: str, parent: str | None) -> Scope:
    return {"kind": kind, "parent": parent, "names": {}}


def scope_kind(summary: Summary, name: str) -> str:
    """The kind of scope ``name`` ("" when there is none)."""
    scope = summary["scopes"].get(name)
    return scope["kind"] if scope is not None else ""


def add_binding(scope: Scope, name: str, binding: Binding) -> None:
    scope["names"].setdefault(name, []).append(binding)


def add_call(summary: Summary, scope: str, ref: str, line: int) -> None:
    """Record a call (``ref`` ends with a call operation) in ``scope``."""
    summary["calls"].setdefault(scope, []).extend((ref, line))


def iter_calls(summary: Summary) -> list[Call]:
    return [
        Call(scope, str(flat[i]), int(flat[i + 1]))
        for scope, flat in summary["calls"].items()
        for i in range(0, len(flat), 2)
    ]
