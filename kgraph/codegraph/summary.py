"""The per-file parse summary: plain JSON-able data, independent of the file's path.

A summary is what a worker process returns and what ``graph_files.summary`` stores, so a
file can be re-resolved later without re-parsing it. Layout (all keys short: it is stored
for every file):

- ``lang``: "python" | "typescript" | "tsx" | "javascript"; ``errors``: ERROR nodes seen.
- ``defs``: qualified name -> ``{"k": kind, "l": line, "e": end line, "x": exported,
  "b": [base refs], "i": [implemented refs], "d": [decorators]}``; kinds are
  class|function|method|variable|type|interface|enum.
- ``scopes``: qualified name ("" is the module) -> ``{"k": module|class|function,
  "p": parent, "b": {name: [binding, ...]}, "g": [global names], "n": [nonlocal names],
  "s": self/cls parameter name, "m": ""|"static"|"class", "ia": {attr: [[scope, binding]]}
  (instance attributes, class scopes only), "r": [binding, ...] (what a function returns)}``.
- ``calls``: ``{scope: [ref, line, ref, line, ...]}``; ``imports``: ``[[scope, module,
  level, [names], line], ...]``; ``star``: ``[[module, level], ...]``; ``all``: ``__all__``
  or None;
  ``exports`` (TS/JS): exported name -> binding; ``estar``: ``export * from`` modules.

A *binding* is a list ending with its line: ``["def", qname, l]``, ``["mod", dotted, l]``
(``import a.b`` binds ``a`` to module ``a``), ``["from", module, level, name, l]``,
``["val", ref, l]``, ``["ann", ref, l]`` (an instance of the annotated type),
``["param", index, l]``, ``["unk", l]``.

A *ref* is an expression in a compact string form: dotted parts, ``()`` after a part for
"the result of calling it": ``self.x.m``, ``Cls().m``, ``super().m``, ``make()()``.
``?`` is an unknown part (``?.m``: a method ``m`` on something unknown), ``<str>`` etc. a
literal of a builtin type, ``this``/``super`` are TS/JS keywords.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from typing import Any

Summary = dict[str, Any]
Binding = list[Any]

UNKNOWN = "?"


def new_summary(lang: str) -> Summary:
    return {
        "lang": lang,
        "errors": 0,
        "defs": {},
        "scopes": {"": new_scope("module", None)},
        "calls": {},
        "imports": [],
        "star": [],
        "all": None,
        "exports": {},
        "estar": [],
    }


def new_scope(kind: str, parent: str | None) -> dict[str, Any]:
    """A scope; the optional keys ("g", "n", "s", "m", "ia", "r") are added when non-empty."""
    return {"k": kind, "p": parent, "b": {}}


def add_binding(scope: dict[str, Any], name: str, binding: Binding) -> None:
    scope["b"].setdefault(name, []).append(binding)


def add_call(summary: Summary, scope: str, ref: str, line: int) -> None:
    """Record a call of ``ref`` in ``scope`` (calls are grouped by scope: [ref, line, ...])."""
    summary["calls"].setdefault(scope, []).extend((ref, line))


def iter_calls(summary: Summary) -> list[tuple[str, str, int]]:
    """(scope, ref, line) of every call."""
    return [
        (scope, flat[i], flat[i + 1])
        for scope, flat in summary["calls"].items()
        for i in range(0, len(flat), 2)
    ]


@lru_cache(maxsize=65536)
def split_ref(ref: str) -> tuple[tuple[str, int], ...]:
    """``"a.b().c"`` -> ``(("a", 0), ("b", 1), ("c", 0))`` (name, number of calls applied)."""
    parts: list[tuple[str, int]] = []
    for piece in ref.split("."):
        calls = 0
        while piece.endswith("()"):
            piece = piece[:-2]
            calls += 1
        parts.append((piece, calls))
    return tuple(parts)


# A binding's trailing line (``,12]``) and a definition's "l"/"e" lines: left out when
# comparing what other files can observe.
_LINES = re.compile(r',-?\d+\]|"[le]":\d+,?')


# Summaries are trees of plain values: no cycle check needed (~15% faster encoding).
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def to_json(summary: Summary) -> str:
    return _ENCODER.encode(summary)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _name_parts(summary: Summary) -> dict[str, list[Any]]:
    """What other files can observe, split by top-level name."""
    parts: dict[str, list[Any]] = {}
    for qname, info in summary["defs"].items():
        parts.setdefault(qname.split(".", 1)[0], []).append(["d", qname, info])
    for qname, scope in summary["scopes"].items():
        if qname:
            parts.setdefault(qname.split(".", 1)[0], []).append(["s", qname, scope])
    for name, bindings in summary["scopes"][""]["b"].items():
        parts.setdefault(name, []).append(["b", bindings])
    for name, binding in summary.get("exports", {}).items():
        parts.setdefault(name, []).append(["x", binding])
    return parts


def changed_names(old: Summary, new: Summary) -> set[str]:
    """Top-level names whose observable part differs between two summaries of one file.

    What other files can observe: definitions, scopes and bindings, exports; not calls,
    import-edge records or line numbers (an edit inside function bodies that only changes
    calls, or shifts lines, changes no name: dependents need no re-resolution).

    ``"__all__"`` when ``__all__`` changed; ``"*"`` when the star imports/re-exports changed
    (then any name looked up in the module may resolve differently).
    """
    changed = set()
    if old.get("all") != new.get("all"):
        changed.add("__all__")
    if old.get("star") != new.get("star") or old.get("estar") != new.get("estar"):
        changed.add("*")
    if old.get("lang") != new.get("lang"):
        changed.add("*")
    before, after = _name_parts(old), _name_parts(new)
    for name in before.keys() | after.keys():
        a = before.get(name)
        b = after.get(name)
        if a is None or b is None:
            changed.add(name)
            continue
        text_a = _LINES.sub("", json.dumps(a, sort_keys=True, separators=(",", ":")))
        text_b = _LINES.sub("", json.dumps(b, sort_keys=True, separators=(",", ":")))
        if text_a != text_b:
            changed.add(name)
    return changed


def depends_on(read: list[str], changed: set[str] | None) -> bool:
    """Whether a file that read ``read`` (top-level names) of another file must be
    re-resolved after that file changed ``changed`` names (None: it was deleted)."""
    if changed is None:
        return True
    if "*" in changed:
        return any(name for name in read)
    return bool(changed.intersection(read))
