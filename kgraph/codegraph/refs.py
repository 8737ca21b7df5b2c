"""Refs: an expression as a compact string, what summaries store and the resolver evaluates.

A ref is dotted *parts*; each part is a name followed by *operations*:

==========  ===================================================================
``()``      call it (``(#N)``: with the arguments ``args[N]`` of the scope the ref
            is written in; ``(!)``: ``raise`` it: a class is instantiated (Go's
            ``T{}``: an instance of ``T``); ``(*)``, only as a call site: iterate
            it, calling ``__iter__`` and ``__next__``)
``['k']``   subscript with a constant key (``[0]``: an int; ``[]``: unknown key)
``[*]``     an element of iterating it (``for x in it``: x is ``it[*]``)
``[2:]``    the elements from index 2 on (``a, *rest = it``)
==========  ===================================================================

Names: an identifier, ``?`` (unknowable), ``<str>``/``<list>``/... (a literal of a builtin
type), ``<#N>`` (the scope's ``containers[N]``), ``@name`` (the definition ``name`` of the
scope itself, undecorated: a decorated def, or a lambda ``@<lambda1>``); TS/JS: ``this``,
``super``. ``self.x.m()``, ``Cls().m``, ``handlers['a'](#0)``, ``pairs[*][1]()``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, NamedTuple

_OPERATION: Final = re.compile(r"\((?:#\d+|!|\*)?\)|\[(?:\*|-?\d+:?|'[^'\[\]()]*')?\]")
_SAFE_KEY: Final = re.compile(r"[^'.\[\]()]*")
CALL, RAISE, PROTOCOL, ITERATE = "()", "(!)", "(*)", "[*]"


class Part(NamedTuple):
    name: str
    ops: tuple[str, ...]


@lru_cache(maxsize=65536)
def split_ref(ref: str) -> tuple[Part, ...]:
    """``"a.b(#0)['k']"`` -> ``(Part("a", ()), Part("b", ("(#0)", "['k']")))``."""
    if "(" not in ref and "[" not in ref:
        return tuple(Part(piece, ()) for piece in ref.split("."))
    parts = []
    for piece in ref.split("."):
        cut = len(piece)
        for marker in ("(", "["):
            found = piece.find(marker)
            if 0 <= found < cut:
                cut = found
        parts.append(Part(piece[:cut], tuple(_OPERATION.findall(piece, cut))))
    return tuple(parts)


@lru_cache(maxsize=65536)
def split_call(ref: str) -> tuple[str, str]:
    """A call ref -> (the callee's ref, the call operation): ``"a.b(#2)"`` -> ``("a.b",
    "(#2)")``; a ref that does not end with a call is its own callee (``""``)."""
    if not ref.endswith(")"):
        return ref, ""
    cut = ref.rfind("(")
    return ref[:cut], ref[cut:]


def call_args(op: str) -> int | None:
    """The arguments index of a call operation (``(#3)`` -> 3), None without arguments
    (``()``, ``(!)``, ``(*)``: the only shorter ones, told apart by length)."""
    return int(op[2:-1]) if len(op) > 3 else None


def key_op(key: str | int | None) -> str:
    """The subscript operation for a constant key (unknown or unsafe keys: ``[]``)."""
    if isinstance(key, int):
        return f"[{key}]"
    if key is not None and _SAFE_KEY.fullmatch(key):
        return f"['{key}']"
    return "[]"


def op_key(op: str) -> str | int | None:
    """The key of a subscript operation (``['a']`` -> "a", ``[0]`` -> 0, ``[]`` -> None).
    A slice (``[2:]``) has no single key: None, as for an unknown one (see
    :func:`slice_start` for its start); ``int("2:")`` raised, and aborted a whole parse."""
    inner = op[1:-1]
    if not inner or inner.endswith(":"):
        return None
    if inner.startswith("'"):
        return inner[1:-1]
    return int(inner)


def slice_start(op: str) -> int | None:
    """The start of a slice operation (``[2:]`` -> 2), None for any other operation."""
    return int(op[1:-2]) if op.endswith(":]") else None


def last_name(ref: str) -> str:
    """The name of the last part: what a call site is indexed by (``a.b(#1)`` -> ``b``)."""
    parts = split_ref(ref)
    return parts[-1].name if parts else ""
