"""Tool results as capped JSON text: the one place that enforces the size budget.

Users of peer memory servers report single tool calls returning hundreds of thousands of
tokens. Here every result is one JSON object whose serialised text never exceeds the cap
(default 8,000 characters): a list is cut to the entries that fit, and the object says
so — ``"truncated": true`` with ``"shown"``, ``"total"`` (when known) and ``"more"`` (how
to get the rest: a narrower query, a bigger ``offset``, or ``get`` on an id). A single
long text is cut with an ellipsis and flagged. Lists carry one-line summaries and ids;
full text comes only from ``get`` (progressive disclosure).
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_MAX_CHARS = 8_000
MIN_MAX_CHARS = 500
SUMMARY_CHARS = 160
ELLIPSIS = "…"


def dumps(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    """Whitespace collapsed; cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + ELLIPSIS


def _shorten_strings(value: Any, limit: int) -> tuple[Any, bool]:
    """``value`` with every string longer than ``limit`` cut; True when anything was cut."""
    if isinstance(value, str):
        return (value, False) if len(value) <= limit else (value[: limit - 1] + ELLIPSIS, True)
    if isinstance(value, list):
        parts = [_shorten_strings(v, limit) for v in value]
        return [p[0] for p in parts], any(p[1] for p in parts)
    if isinstance(value, dict):
        cut = False
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key], was_cut = _shorten_strings(item, limit)
            cut = cut or was_cut
        return out, cut
    return value, False


def capped(
    payload: dict[str, Any],
    max_chars: int,
    *,
    list_key: str | None = None,
    more: str | None = None,
) -> str:
    """``payload`` as JSON text of at most ``max_chars`` characters (see module docstring).

    ``list_key`` names the list that may be cut from the end; ``more`` says how to get the
    entries left out. ``payload["total"]``, when present, is the full count.
    """
    text = dumps(payload)
    if len(text) <= max_chars:
        return text
    result = dict(payload)
    entries = list(result.get(list_key, [])) if list_key else []
    if entries:
        # Binary search for the most entries that fit with the truncation fields added.
        low, high = 0, len(entries)
        while low < high:
            middle = (low + high + 1) // 2
            trial = _with_entries(result, list_key, entries, middle, more)
            if len(dumps(trial)) <= max_chars:
                low = middle
            else:
                high = middle - 1
        result = _with_entries(result, list_key, entries, max(low, 1), more)
        text = dumps(result)
        if len(text) <= max_chars:
            return text
    # Still too big (one huge entry, or long texts): cut long strings, halving until it fits.
    limit = max(SUMMARY_CHARS, max_chars // 2)
    while limit >= 40:
        shortened, cut = _shorten_strings(result, limit)
        if cut:
            shortened["texts_cut"] = True
        text = dumps(shortened)
        if len(text) <= max_chars:
            return text
        limit //= 2
    return dumps({"truncated": True, "error": "result too large for the cap", "more": more})[
        :max_chars
    ]


def _with_entries(
    payload: dict[str, Any], key: str | None, entries: list[Any], count: int, more: str | None
) -> dict[str, Any]:
    assert key is not None
    return {
        **payload,
        key: entries[:count],
        "truncated": True,
        "shown": count,
        "total": payload.get("total", len(entries)),
        "more": more or "narrow the query or ask for fewer entries",
    }
