"""A summary's stored form: the text ``graph_summaries`` holds, and the summary read back.

Apart from :mod:`~kgraph.codegraph.summary` (what a summary holds, which every summariser
and the resolver import), as only storing a summary and reading it back need it: the
encoding is orjson's, with ``json`` to fall back on (:func:`json_text` serves the graph's
other JSON columns too); decoding rebuilds the records from their JSON arrays, and can
leave each scope as its text until the resolver first looks at it. A summary is stored
with :func:`content_hash`, the id of the content it was parsed from.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from kgraph.codegraph.listing import blob_hash
from kgraph.codegraph.summary import (
    Annotated,
    Arguments,
    Assigned,
    Binding,
    Container,
    Defined,
    Import,
    ImportedModule,
    ImportedName,
    Parameter,
    Scope,
    ScopedBinding,
    StarImport,
    Store,
    Summary,
    Unknown,
)

# tuple.__new__(cls, row) builds a NamedTuple from a stored row without the Python-level
# __new__/_make (a third of the decoding time); rows are trusted: this code wrote them.
_new = tuple.__new__
# A binding's tag (the first item of its row) -> its record.
_BINDINGS: dict[str, Any] = {
    "def": Defined,
    "mod": ImportedModule,
    "from": ImportedName,
    "val": Assigned,
    "ann": Annotated,
    "param": Parameter,
    "unk": Unknown,
}
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
