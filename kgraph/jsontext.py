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

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def may_hold_surrogates(raw: str) -> bool:
    """False when ``raw`` (JSON text) has no escape that could decode to a surrogate."""
    return "\\ud" in raw or "\\uD" in raw


def without_surrogates(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings and keys replaced
    by U+FFFD."""
    if isinstance(value, str):
        return _LONE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_surrogates(v) for v in value]
    return value
