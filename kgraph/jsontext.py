"""JSON text whose strings can be written anywhere: lone surrogates replaced.

JSON may escape half of a UTF-16 pair (``"\\ud800"``); Python decodes it to a lone
surrogate that no UTF-8 file, terminal or database accepts, so the first write raised
UnicodeEncodeError far from the line that carried it (``transcript show`` of a transcript
cut inside an emoji, ``knowledge import`` of such a line). Decoded values go through
:func:`without_surrogates`; a line without a ``\\ud`` / ``\\uD`` escape cannot hold one
and is left as it is, so the common case costs a substring test.
"""

from __future__ import annotations

import re
from typing import Any

from kgraph.limits import JSON_DEPTH

# Compiled on first use (re caches it): compiling it costs ~1 ms of every process that
# imports this module, most of which never meet a surrogate.
_LONE = "[\ud800-\udfff]"
REPLACEMENT = "\ufffd"


def may_hold_surrogates(raw: str) -> bool:
    """False when ``raw`` (JSON text) has no escape that could decode to a surrogate."""
    return "\\ud" in raw or "\\uD" in raw


def without_surrogates(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings and keys replaced
    by U+FFFD."""
    if isinstance(value, str):
        return re.sub(_LONE, REPLACEMENT, value)
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_surrogates(v) for v in value]
    return value


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON value cannot be stored (too deep, a non-finite number, text that is
    not valid Unicode), or None. Iterative: the depth itself is what is being checked."""
    import math

    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > JSON_DEPTH:
            return f"nested deeper than {JSON_DEPTH} levels"
        if isinstance(item, dict):
            stack.extend((k, depth) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, float) and not math.isfinite(item):
            return "holds NaN or Infinity, which JSON does not allow"
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "holds text that is not valid Unicode (a lone surrogate)"
    return None
