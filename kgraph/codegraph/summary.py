"""The per-file parse summary: what a worker returns and ``graph_summaries`` stores, so a
file can be re-resolved later without re-parsing it. Independent of the file's path.

Dict-shaped parts are TypedDicts (:class:`Summary`, :class:`Scope`, :class:`Definition`):
JSON objects with only the keys that have something in them. Records are NamedTuples,
stored as JSON arrays (compact) and rebuilt by :func:`decode_summary`. A *binding* says
what a name may hold, from a given line on; the first item of its array is its tag:

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

import json
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, NamedTuple, NotRequired, TypedDict

import orjson

from kgraph.codegraph.listing import blob_hash

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
# tuple.__new__(cls, row) builds a NamedTuple from a stored row without the Python-level
# __new__/_make (a third of the decoding time); rows are trusted: this code wrote them.
_new = tuple.__new__
_BINDINGS: dict[str, Any] = {
    "def": Defined,
    "mod": ImportedModule,
    "from": ImportedName,
    "val": Assigned,
    "ann": Annotated,
    "param": Parameter,
    "unk": Unknown,
}


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


# -- storage ------------------------------------------------------------------------------
# Summaries are trees of plain values: no cycle check needed (~15% faster encoding).
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def _record(value: object) -> tuple[object, ...]:
    """orjson's ``default``: a record (a NamedTuple, which orjson leaves to its caller) as
    the plain tuple it is stored as. Anything else is refused, as ``json`` would."""
    if isinstance(value, tuple):
        return tuple(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_summary(summary: Summary) -> str:
    """The stored form: the summary's JSON with each scope replaced by the span of its own
    JSON text, a newline (compact JSON has none), then those texts, comma-separated.
    Reading a summary back lazily parses only the scopes the resolver looks at (a 2-file
    edit of sqlalchemy reads 93 summaries and never looks at 73% of their scopes' bytes;
    parsing them was a fifth of the edit); reading it whole parses the texts as one JSON
    array. (Scopes as JSON strings inside the summary cost a cold parse 0.2 CPU-s more,
    escaping and unescaping their quotes.)

    orjson encodes a cold parse's 28 MB of summaries in 40% of the time ``json`` takes.
    Its text keeps non-ASCII characters as they are (``json`` escapes them): spans count
    characters of the decoded text. ``json`` is the fallback for what orjson refuses (a
    string that is not valid UTF-8, an integer above 64 bits)."""
    try:
        return _joined(summary, json_text)
    except TypeError:  # orjson.JSONEncodeError is one
        return _joined(summary, _ENCODER.encode)


def json_text(value: Any) -> str:
    """``value`` as compact JSON text, by orjson (records as arrays); TypeError for what
    orjson refuses."""
    return orjson.dumps(value, default=_record).decode()


def _joined(summary: Summary, encode: Callable[[Any], str]) -> str:
    texts = [encode(scope) for scope in summary["scopes"].values()]
    spans: dict[str, tuple[int, int]] = {}
    at = 0
    for name, text in zip(summary["scopes"], texts, strict=True):
        spans[name] = (at, at + len(text))
        at += len(text) + 1
    head: dict[str, Any] = dict(summary)
    head["scopes"] = spans
    return encode(head) + "\n" + ",".join(texts)


def content_hash(data: bytes) -> str:
    """git's id of the content (kgraph.codegraph.listing.blob_hash): a parse can then take
    an unchanged file's hash from git's index instead of reading the file."""
    return blob_hash(data)


def _bindings(rows: list[Any]) -> list[Binding]:
    return [_new(_BINDINGS[row[0]], row) for row in rows]


def _decode_scope(scope: Any) -> Scope:
    """Rebuild one scope's records (JSON arrays) as NamedTuples, in place. ``scope`` is
    the decoded JSON, typed ``Any``: its lists are not yet the records they become (a
    compiled build checks what its values are)."""
    bindings = _BINDINGS
    # Each name's rows are replaced in their own list: most names have one binding, and a
    # comprehension per name (a function call in Python 3.11) cost a third of rebuilding.
    names: dict[str, list[Any]] = scope["names"]
    for rows in names.values():
        if len(rows) == 1:
            row = rows[0]
            rows[0] = _new(bindings[row[0]], row)
        else:
            rows[:] = [_new(bindings[row[0]], row) for row in rows]
    if "returns" in scope:
        scope["returns"] = _bindings(scope["returns"])
    if "yields" in scope:
        scope["yields"] = _bindings(scope["yields"])
    if "attrs" in scope:
        attrs: dict[str, list[Any]] = scope["attrs"]
        for name, pairs in attrs.items():
            attrs[name] = [_new(ScopedBinding, (s, _new(_BINDINGS[b[0]], b))) for s, b in pairs]
    if "args" in scope:
        scope["args"] = [_new(Arguments, row) for row in scope["args"]]
    if "containers" in scope:
        scope["containers"] = [_new(Container, row) for row in scope["containers"]]
    if "stores" in scope:
        scope["stores"] = [_new(Store, row) for row in scope["stores"]]
    decoded: Scope = scope
    return decoded


class _StoredScopes(dict[str, Any]):
    """The scopes of a summary read back from the database, each parsed and rebuilt on first
    access.

    The resolver reads ``Summary["scopes"]`` as a ``Mapping``, not a ``dict``: compiled by
    mypyc (``hatch_build.py``), its ``get`` on a ``dict`` would skip this subclass's own.

    A file loaded because another file reads some of its names has most of its scopes
    never looked at: in a 2-file edit of sqlalchemy, rebuilding every record of the 93
    summaries read was 30% of their decoding. Reads go through ``[]``, ``get``, ``items``
    and ``values`` (the resolver's only ones); ``in`` and ``len`` need no decoding.
    """

    def __init__(self, scopes: dict[str, Any]) -> None:
        super().__init__(scopes)
        self._pending = set(scopes)

    def __getitem__(self, name: str) -> Scope:
        if name not in self._pending:
            found: Scope = dict.__getitem__(self, name)
            return found
        self._pending.discard(name)
        scope = _read_scope(dict.__getitem__(self, name))
        dict.__setitem__(self, name, scope)
        return scope

    def get(self, name: str, default: Any = None) -> Any:
        if name in self._pending:
            return self[name]
        return dict.get(self, name, default)

    def _decode_all(self) -> None:
        for name in self._pending:
            dict.__setitem__(self, name, _read_scope(dict.__getitem__(self, name)))
        self._pending.clear()

    def values(self) -> Any:
        self._decode_all()
        return dict.values(self)

    def items(self) -> Any:
        self._decode_all()
        return dict.items(self)


def _read_scope(stored: Any) -> Scope:
    """A stored scope decoded: its JSON text (see :func:`encode_summary`), or the object
    itself in summaries stored before scopes were texts of their own."""
    return _decode_scope(orjson.loads(stored) if isinstance(stored, str) else stored)


def decode_summary(text: str | bytes, lazy: bool = False) -> Summary:
    """A stored summary (:func:`encode_summary`; or the plain JSON stored before it) with
    its records rebuilt as NamedTuples; ``lazy``: scope by scope, as the resolver first
    reads each (:class:`_StoredScopes`)."""
    if isinstance(text, bytes):
        text = text.decode()
    head, split, body = text.partition("\n")
    raw: Any = orjson.loads(head)
    summary: Summary = raw
    scopes: dict[str, Any] = raw["scopes"]
    if split and not lazy:  # the scopes' texts are the items of a JSON array
        for name, scope in zip(scopes, orjson.loads(f"[{body}]"), strict=True):
            scopes[name] = scope
    elif split:  # each scope's text, by its span
        for name, (start, end) in scopes.items():
            scopes[name] = body[start:end]
    if lazy:
        summary["scopes"] = _StoredScopes(scopes)
    else:
        for name, scope in scopes.items():
            scopes[name] = _read_scope(scope)
    # The rows are read through ``raw`` (Any): compiled, a read through the typed
    # ``summary`` would check that each is already the NamedTuple it is about to become.
    summary["imports"] = [_new(Import, row) for row in raw["imports"]]
    summary["star"] = [_new(StarImport, row) for row in raw["star"]]
    exports: dict[str, Any] = raw["exports"]
    for name, row in exports.items():
        exports[name] = _new(_BINDINGS[row[0]], row)
    return summary
