"""Tool arguments: JSON-schema builders for the tool table, and checked reading of the
arguments a client sent.

Every string and array in a tool's schema has a maximum length (``maxLength``/``maxItems``),
and :class:`Args` checks the whole call against its schema when it is built — before the
tool does any work. A 10 MB argument used to be redacted, embedded or stored before
anything looked at its size (a ``log_action`` took 31 s, a ``search`` 56 s); now it is one
InvalidValueError line naming the argument, its size and the limit, in milliseconds.

The server therefore turns off the SDK's own validation (``validate_input=False``): the
``jsonschema`` package checks every item of an array before its ``maxItems`` (13 s for a
million entries), quotes the whole offending value in its message (10 MB back to the
client) and never names the argument. :class:`Args` accepts and refuses what ``jsonschema``
does for these schemas (tests/mcp/test_limits.py compares the two), with two deliberate
differences: an object's size as JSON (``OBJECT_JSON_CHARS``), which JSON schema cannot
express, and NaN, which ``jsonschema`` lets through every bound.

The limits, in characters (Python's ``len``, which is also what ``maxLength`` counts):

The first three come from :mod:`kgraph.limits`, shared with the CLI and the hooks.

- ``NAME_CHARS`` 1,000: a code name, id, path, branch, area, sha or session id. At most
  4,000 bytes of UTF-8, so a LIKE pattern built from it stays far below SQLite's
  50,000-byte limit (the "LIKE or GLOB pattern too complex" a 1 MB name used to hit).
- ``QUERY_CHARS`` 10,000: a search query.
- ``PROMPT_CHARS`` 100,000: a user's prompt, as the hooks accept, so ``recall`` used as a
  prompt hook never refuses a prompt the hooks take; recall reads only its first 2,000
  characters.
- ``TEXT_CHARS`` 20,000: knowledge to ``learn`` (several pages; an item is meant to be a
  cause, rule or decision that stands alone).
- ``NOTE_CHARS`` 10,000: a workflow action or commit message.
- ``OBJECT_JSON_CHARS`` 20,000 and ``OBJECT_PROPERTIES`` 50: workflow metadata.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from kgraph.errors import InvalidValueError
from kgraph.limits import NAME_CHARS

Schema = dict[str, Any]  # a JSON schema object: JSON, so a plain dict

TEXT_CHARS = 20_000
NOTE_CHARS = 10_000
OBJECT_JSON_CHARS = 20_000
OBJECT_PROPERTIES = 50
ECHO_CHARS = 40  # a refused value or name quoted in an error, at most


def string(description: str, *, max_length: int) -> Schema:
    return {"type": "string", "description": description, "maxLength": max_length}


def choice(description: str, options: Sequence[str]) -> Schema:
    """A string from ``options`` (its ``maxLength`` is the longest option)."""
    return {
        "type": "string",
        "description": description,
        "enum": list(options),
        "maxLength": max(len(o) for o in options),
    }


def integer(description: str, *, minimum: int, maximum: int, default: int | None = None) -> Schema:
    schema: Schema = {
        "type": "integer",
        "description": description,
        "minimum": minimum,
        "maximum": maximum,
    }
    if default is not None:
        schema["default"] = default
    return schema


def number(description: str, *, minimum: float, maximum: float) -> Schema:
    return {"type": "number", "description": description, "minimum": minimum, "maximum": maximum}


def boolean(description: str, *, default: bool) -> Schema:
    return {"type": "boolean", "description": description, "default": default}


def strings(
    description: str, *, max_items: int, max_length: int = NAME_CHARS, enum: Sequence[str] = ()
) -> Schema:
    """An array of strings: of ``enum`` when given, else each at most ``max_length``."""
    items = choice("", enum) if enum else string("", max_length=max_length)
    items.pop("description")
    return {"type": "array", "items": items, "description": description, "maxItems": max_items}


def obj(description: str) -> Schema:
    """A JSON object; its size as JSON is checked by :class:`Args` (see the module doc)."""
    return {
        "type": "object",
        "description": f"{description} At most {OBJECT_JSON_CHARS:,} characters as JSON.",
        "maxProperties": OBJECT_PROPERTIES,
    }


def arguments(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """A tool's input schema; unknown arguments are rejected (a typo is an error)."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def clip(value: Any) -> str:
    """``value`` for an error message, never more than ``ECHO_CHARS`` characters: a refused
    value may be megabytes long, and a list or object is only named."""
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    try:
        text = value if isinstance(value, str) else json.dumps(value)
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        return "a very large number"
    cut = text if len(text) <= ECHO_CHARS else text[: ECHO_CHARS - 1] + "…"
    return repr(cut) if isinstance(value, str) else cut


def _is_integer(value: Any) -> bool:
    """JSON schema's integer: 5 and 5.0, not True (jsonschema counts 5.0 as an integer)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _check_range(name: str, value: float, schema: Schema) -> None:
    low, high = schema.get("minimum"), schema.get("maximum")
    below = low is not None and value < low
    above = high is not None and value > high
    if math.isnan(value) or below or above:
        raise InvalidValueError(f"{name} must be between {low} and {high} (got {clip(value)})")


def _check_object(name: str, value: Any, schema: Schema) -> None:
    if not isinstance(value, dict):
        raise InvalidValueError(f"{name} must be an object")
    limit = schema.get("maxProperties")
    if limit is not None and len(value) > limit:
        raise InvalidValueError(f"{name} has {len(value):,} keys (at most {limit:,})")
    try:
        size = len(json.dumps(value, ensure_ascii=False, default=str))
    except (ValueError, RecursionError) as exc:
        raise InvalidValueError(f"{name} cannot be stored as JSON ({exc})") from exc
    if size > OBJECT_JSON_CHARS:
        raise InvalidValueError(
            f"{name} is {size:,} characters as JSON (at most {OBJECT_JSON_CHARS:,})"
        )


def check(name: str, value: Any, schema: Schema) -> None:
    """Raise InvalidValueError when ``value`` breaks ``schema`` (the part of JSON schema
    the tool table uses). Sizes are checked before anything that walks the value."""
    kind = schema.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise InvalidValueError(f"{name} must be a string")
        limit = schema["maxLength"]
        if len(value) > limit:
            raise InvalidValueError(f"{name} is {len(value):,} characters long (at most {limit:,})")
        allowed = schema.get("enum")
        if allowed is not None and value not in allowed:
            raise InvalidValueError(
                f"{name} must be one of: {', '.join(allowed)} (got {clip(value)})"
            )
    elif kind == "integer":
        if not _is_integer(value):
            raise InvalidValueError(f"{name} must be an integer (got {clip(value)})")
        _check_range(name, value, schema)
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidValueError(f"{name} must be a number (got {clip(value)})")
        _check_range(name, value, schema)
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise InvalidValueError(f"{name} must be true or false (got {clip(value)})")
    elif kind == "array":
        if not isinstance(value, list):
            raise InvalidValueError(f"{name} must be a list")
        limit = schema["maxItems"]
        if len(value) > limit:
            raise InvalidValueError(f"{name} has {len(value):,} entries (at most {limit:,})")
        for index, item in enumerate(value):
            check(f"{name}[{index}]", item, schema["items"])
    elif kind == "object":
        _check_object(name, value, schema)
    else:  # a schema the builders above cannot make
        raise AssertionError(f"{name}: no check for schema type {kind!r}")


class Args:
    """Checked access to one call's arguments: the whole call is checked against the
    tool's schema on construction, so the accessors only convert."""

    def __init__(self, values: Mapping[str, Any] | None, schema: Schema) -> None:
        self.values = dict(values or {})
        self.schema = schema
        known = schema.get("properties", {})
        unknown = sorted(set(self.values) - set(known))
        if unknown:
            shown = ", ".join(clip(u)[1:-1] for u in unknown[:5])
            raise InvalidValueError(f"unknown argument(s): {shown}")
        missing = [k for k in schema.get("required", []) if k not in self.values]
        if missing:
            raise InvalidValueError(f"missing required argument(s): {', '.join(missing)}")
        for name, value in self.values.items():
            check(name, value, known[name])

    def _property(self, name: str) -> Schema:
        found = self.schema.get("properties", {}).get(name)
        assert isinstance(found, dict), f"{name} is not in the tool's schema"
        return found

    def text(self, name: str, default: str | None = None) -> str | None:
        self._property(name)
        value = self.values.get(name, default)
        return value if isinstance(value, str) else None

    def required_text(self, name: str) -> str:
        value = self.text(name)
        if value is None or not value.strip():
            raise InvalidValueError(f"{name} must not be empty")
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.values.get(name, self._property(name).get("default", default))
        return None if value is None else int(value)

    def number(self, name: str, default: float) -> float:
        self._property(name)
        return float(self.values.get(name, default))

    def flag(self, name: str) -> bool:
        return bool(self.values.get(name, self._property(name).get("default", False)))

    def texts(self, name: str) -> list[str]:
        self._property(name)
        return [v for v in self.values.get(name) or [] if v.strip()]

    def mapping(self, name: str) -> dict[str, Any] | None:
        self._property(name)
        value = self.values.get(name)
        return dict(value) if value is not None else None
