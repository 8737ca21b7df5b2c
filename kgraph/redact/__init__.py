"""Secret redaction: the one place that decides what never reaches disk.

``redact(text)`` replaces secrets with ``[REDACTED:<kind>]``. It is a pure function built
from regular expressions (< 1 ms for a few KB, no imports beyond ``re``; each compiled when
a text first holds one of its trigger words), so any hook can call it. The secret shapes it
knows are the rules of :mod:`kgraph.redact.rules`; a value that is plainly no secret (a
placeholder, a reference, code, an earlier marker) is kept.

``redact(text, thorough=True)`` additionally runs every regex-based plugin of the maintained
`detect-secrets` package over what is left, when a cheap first pass finds a shape one of
them could match (:mod:`kgraph.redact.plugins`: loading them costs ~60 ms). Latency-bound
hooks call plain ``redact``.

Redaction is idempotent: ``redact(redact(t)) == redact(t)``.
"""

from __future__ import annotations

import re
from typing import Any

from kgraph.redact.plugins import detect_secrets_rules, may_hold_plugin_secret
from kgraph.redact.rules import RULES, Rule

MARKER = "[REDACTED:{kind}]"

# Values that are clearly not secrets: placeholders, references, code, or already redacted.
_NOT_A_SECRET = (
    r"(?i)^(?:\[REDACTED:|\$|<|\{|%|\*{3,}|x{3,}$|none$|null$|nil$|true$|false$|undefined$|"
    r"str$|int$|bytes$|string$|optional|os\.|env\.|process\.env|settings\.|config\.|self\.)"
)


def _marker(kind: str) -> str:
    return MARKER.format(kind=kind)


def _replacement(rule: Rule, match: re.Match[str], original: str) -> tuple[int, int, str] | None:
    """The (start, end, text) that replaces the secret in ``match``, or None to keep it."""
    if rule.group == 0:
        return match.start(), match.end(), _marker(rule.kind)
    index = rule.group
    if index < 0:  # detect-secrets' multi-group regexes: the first group that matched
        index = next((i for i, g in enumerate(match.groups(), 1) if g), 0)
        if index == 0:
            return match.start(), match.end(), _marker(rule.kind)
    if match.group(index) is None:
        return None
    start, end = match.span(index)
    value = original[start:end]
    quote = value[0] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else ""
    bare = value[1:-1] if quote else value
    if not bare or re.match(_NOT_A_SECRET, bare):
        return None
    return start, end, f"{quote}{_marker(rule.kind)}{quote}"


def _apply(rule: Rule, text: str, low: str) -> str:
    if rule.lower and len(low) == len(text):
        haystack, pattern = low, rule.pattern
    elif rule.lower:  # lower() changed the length (rare Unicode): match case-insensitively
        haystack, pattern = text, re.compile(rule.pattern.pattern, re.IGNORECASE)
    else:
        haystack, pattern = text, rule.pattern
    pieces: list[str] = []
    position = 0
    for match in pattern.finditer(haystack):
        replacement = _replacement(rule, match, text)
        if replacement is None:
            continue
        start, end, new = replacement
        pieces.append(text[position:start])
        pieces.append(new)
        position = end
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def redact(text: str, *, thorough: bool = False) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED:<kind>]``.

    ``thorough=True`` also applies detect-secrets' regex plugins (the first call imports
    detect-secrets, ~180 ms; later calls cost a few hundred microseconds more).
    """
    if not text:
        return text
    low = text.lower()
    for rule in RULES:
        if rule.triggers and not any(t in low for t in rule.triggers):
            continue
        new = _apply(rule, text, low)
        if new is not text:
            text, low = new, new.lower()
    if thorough and may_hold_plugin_secret(text):
        for rule in detect_secrets_rules():
            new = _apply(rule, text, low)
            if new is not text:
                text, low = new, new.lower()
    return text


def redact_data(value: Any, *, thorough: bool = False) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists, strings); keys too."""
    if isinstance(value, str):
        return redact(value, thorough=thorough)
    if isinstance(value, dict):
        return {
            redact(str(k), thorough=thorough): redact_data(v, thorough=thorough)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_data(v, thorough=thorough) for v in value]
    return value
