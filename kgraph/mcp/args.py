"""Tool arguments: JSON-schema builders for the tool table, and typed reading of the
arguments a client sent.

The SDK validates arguments against each tool's schema before the call; :class:`Args`
checks again while reading (a client may skip validation, and tests call tools directly),
raising InvalidValueError — which the server returns as a tool error, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgraph.errors import InvalidValueError

Schema = dict[str, Any]  # a JSON schema object: JSON, so a plain dict


def string(description: str, *, enum: Sequence[str] | None = None) -> Schema:
    schema: Schema = {"type": "string", "description": description}
    if enum is not None:
        schema["enum"] = list(enum)
    return schema


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


def strings(description: str, *, max_items: int) -> Schema:
    return {
        "type": "array",
        "items": {"type": "string"},
        "description": description,
        "maxItems": max_items,
    }


def obj(description: str) -> Schema:
    return {"type": "object", "description": description}


def arguments(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """A tool's input schema; unknown arguments are rejected (a typo is an error)."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


class Args:
    """Typed, checked access to one call's arguments."""

    def __init__(self, values: Mapping[str, Any] | None, schema: Schema) -> None:
        self.values = dict(values or {})
        self.schema = schema
        known = schema.get("properties", {})
        unknown = sorted(set(self.values) - set(known))
        if unknown:
            raise InvalidValueError(f"unknown argument(s): {', '.join(unknown)}")
        missing = [k for k in schema.get("required", []) if self.values.get(k) is None]
        if missing:
            raise InvalidValueError(f"missing required argument(s): {', '.join(missing)}")

    def _property(self, name: str) -> Schema:
        found = self.schema.get("properties", {}).get(name)
        assert isinstance(found, dict), f"{name} is not in the tool's schema"
        return found

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.values.get(name, default)
        if value is None:
            return None
        if not isinstance(value, str):
            raise InvalidValueError(f"{name} must be a string")
        allowed = self._property(name).get("enum")
        if allowed is not None and value not in allowed:
            raise InvalidValueError(f"{name} must be one of: {', '.join(allowed)}")
        return value

    def required_text(self, name: str) -> str:
        value = self.text(name)
        if value is None or not value.strip():
            raise InvalidValueError(f"{name} must not be empty")
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.values.get(name, self._property(name).get("default", default))
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidValueError(f"{name} must be an integer")
        schema = self._property(name)
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidValueError(f"{name} must be between {low} and {high}")
        return value

    def number(self, name: str, default: float) -> float:
        value = self.values.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidValueError(f"{name} must be a number")
        schema = self._property(name)
        if not schema["minimum"] <= value <= schema["maximum"]:
            raise InvalidValueError(
                f"{name} must be between {schema['minimum']} and {schema['maximum']}"
            )
        return float(value)

    def flag(self, name: str) -> bool:
        value = self.values.get(name, self._property(name).get("default", False))
        if not isinstance(value, bool):
            raise InvalidValueError(f"{name} must be true or false")
        return value

    def texts(self, name: str) -> list[str]:
        value = self.values.get(name)
        if value is None:
            return []
        if isinstance(value, str):  # a lone string for a list: accept it
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidValueError(f"{name} must be a list of strings")
        limit = self._property(name).get("maxItems")
        if limit is not None and len(value) > limit:
            raise InvalidValueError(f"{name} takes at most {limit} entries")
        return [v for v in value if v.strip()]

    def mapping(self, name: str) -> dict[str, Any] | None:
        value = self.values.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise InvalidValueError(f"{name} must be an object")
        return value
