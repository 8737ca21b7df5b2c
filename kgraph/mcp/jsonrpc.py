"""Screening each line a client sends before the SDK sees it: malformed JSON-RPC gets the
error reply JSON-RPC 2.0 prescribes, instead of silence.

The SDK (mcp 1.30) drops most malformed messages: it logs them and sends a
"notifications/message" saying "Internal Server Error" that carries no id, so a client
waiting on that id waits forever. It answers an unknown method with -32602 where JSON-RPC
says -32601. :func:`screen` decides, for one line, between passing the message on
(:class:`Forward`) and answering it here (:class:`Answer`, whose ``reply`` may be None:
nothing may be sent back, for a malformed response or a notification — the protocol never
answers those, and answering a response could start an endless exchange of errors).

The rules (JSON-RPC 2.0, section 5.1, with MCP's narrower ids):

- not JSON (or JSON the SDK's parser refuses: a lone surrogate, nesting past its limit):
  -32700, with the id when a lenient parse can still read one, else null;
- not an object, an empty array, an object that is neither a request, a notification nor a
  response (wrong ``jsonrpc``, no ``method``, a ``method`` that is not a string, ``params``
  that is not structured, an ``id`` that is not a string or an integer): -32600;
- a batch (an array): MCP 2025-06-18 removed batching and the SDK never supported it, so
  one -32600 per request in it, in an array, as JSON-RPC answers a batch;
- ``params`` given as an array: -32602 (MCP's parameters are named);
- a method MCP does not define, with an id: -32601.

A request for a known method with wrong parameters passes on: the SDK answers it -32602.
The id is echoed whenever it could be read, so the client can match the error to its call.
A line that is only whitespace is skipped: newline-delimited framing carries no message
there, and no client waits on it.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import pydantic_core

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

RequestId = str | int


@dataclass(frozen=True)
class Forward:
    """A well-formed message (a JSON object) for the SDK."""

    message: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """A message answered here: ``reply`` is the JSON line to send, or None for none."""

    reply: str | None
    reason: str


def error_reply(code: int, message: str, request_id: RequestId | None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def dumps(reply: Any) -> str:
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":"))


def readable_id(message: Any) -> RequestId | None:
    """The message's id when MCP allows it (a string or an integer, not a boolean) and it
    can be written back (no lone surrogate); None otherwise."""
    if not isinstance(message, dict):
        return None
    found = message.get("id")
    if isinstance(found, bool):
        return None
    if isinstance(found, int):
        return found
    if isinstance(found, str):
        try:
            found.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return found
    return None


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def problem(message: Any, methods: Collection[str]) -> tuple[int, str] | None:
    """What is wrong with one parsed message, as (error code, message), or None if it is
    well formed. A response is judged only on what the SDK needs to route it."""
    if not isinstance(message, dict):
        return INVALID_REQUEST, "Invalid Request: a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'
    if "id" in message and readable_id(message) is None:
        return INVALID_REQUEST, "Invalid Request: id must be a string or an integer"
    if _is_response(message):
        return None
    if "method" not in message:
        return INVALID_REQUEST, "Invalid Request: no method"
    method = message["method"]
    if not isinstance(method, str):
        return INVALID_REQUEST, "Invalid Request: method must be a string"
    params = message.get("params")
    if isinstance(params, list):
        return INVALID_PARAMS, "Invalid params: params must be an object (named parameters)"
    if params is not None and not isinstance(params, dict):
        return INVALID_REQUEST, "Invalid Request: params must be an object"
    if "id" in message and method not in methods:
        return METHOD_NOT_FOUND, f"Method not found: {method[:100]}"
    return None


def _single(message: Any, methods: Collection[str]) -> Forward | Answer:
    found = problem(message, methods)
    if found is None:
        return Forward(message)
    code, text = found
    if isinstance(message, dict) and _is_response(message):
        return Answer(None, f"a malformed response, dropped: {text}")
    return Answer(dumps(error_reply(code, text, readable_id(message))), text)


def _batch(messages: list[Any], methods: Collection[str]) -> Answer:
    if not messages:
        return Answer(
            dumps(error_reply(INVALID_REQUEST, "Invalid Request: an empty batch", None)),
            "an empty batch",
        )
    replies: list[dict[str, Any]] = []
    for message in messages:
        found = problem(message, methods)
        if found is None and (_is_response(message) or "id" not in message):
            continue  # a notification or a response: never answered
        if found is not None and isinstance(message, dict) and _is_response(message):
            continue
        code, text = found or (INVALID_REQUEST, "Invalid Request: batches are not supported")
        replies.append(error_reply(code, text, readable_id(message)))
    return Answer(dumps(replies) if replies else None, "a batch (MCP has no batches)")


def _parse_error(line: str, detail: str) -> Answer:
    """The SDK's parser refused ``line``; Python's lenient one may still read the id."""
    try:
        lenient = json.loads(line)
    except (ValueError, RecursionError):
        lenient = None
    text = f"Parse error: {detail[:200]}"
    return Answer(dumps(error_reply(PARSE_ERROR, text, readable_id(lenient))), text)


def screen(line: str, methods: Collection[str]) -> Forward | Answer:
    """Decide what to do with one line from the client (see the module doc). ``methods``
    are the request methods MCP defines."""
    if not line.strip():
        return Answer(None, "a blank line")
    try:  # the parser the SDK uses, so whatever passes here parses there too
        message = pydantic_core.from_json(line)
    except ValueError as exc:
        return _parse_error(line, str(exc))
    if isinstance(message, list):
        return _batch(message, methods)
    return _single(message, methods)
