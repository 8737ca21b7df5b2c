"""Malformed JSON-RPC: every request the server cannot serve gets a JSON-RPC error, and the
server goes on.

Each case runs twice: against the transport's decision alone (``to_session``: the screen,
then the SDK's message model), and against the real
``kgraph mcp`` over stdio (one process per test module and worker), where after each
malformed line a ping must still be answered. Before the screen, the SDK (mcp 1.30)
answered none of the -32700/-32600 cases (a log notification without an id instead) and
answered an unknown method with -32602.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.message import SessionMessage

from kgraph.mcp.jsonrpc import Answer
from kgraph.mcp.stdio import to_session
from tests.mcp.rawserver import RawServer, isolated_env


@dataclass(frozen=True)
class Case:
    line: str
    reply: Any  # (code, id) | [(code, id), ...] for a batch | None: no reply
    by_sdk: bool = False  # well formed JSON-RPC: the screen passes it on, the SDK answers


DEEP = '{"jsonrpc":"2.0","id":23,"method":"ping","params":{"a":' + "[" * 300 + "]" * 300 + "}}"
CALL = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}'

CASES: dict[str, Case] = {
    "cut-off JSON": Case('{"jsonrpc":"2.0","id":1,"method":"ping"', (-32700, None)),
    "not JSON": Case("hello", (-32700, None)),
    "a lone surrogate, id readable": Case(
        CALL % (21, '{"name":"find","arguments":{"name":"\\ud800"}}'), (-32700, 21)
    ),
    "nested past the parser's limit": Case(DEEP, (-32700, 23)),
    "an empty batch": Case("[]", (-32600, None)),
    "a batch of requests": Case(
        '[{"jsonrpc":"2.0","id":2,"method":"ping"},'
        '{"jsonrpc":"2.0","method":"notifications/initialized"}]',
        [(-32600, 2)],
    ),
    "an array of non-messages": Case("[1, 2]", [(-32600, None), (-32600, None)]),
    "a number": Case("42", (-32600, None)),
    "a string": Case('"ping"', (-32600, None)),
    "null": Case("null", (-32600, None)),
    "no method": Case('{"jsonrpc":"2.0","id":3}', (-32600, 3)),
    "a method that is not a string": Case('{"jsonrpc":"2.0","id":4,"method":5}', (-32600, 4)),
    "an id-less message with a bad method": Case(
        '{"jsonrpc":"2.0","method":1,"params":"bar"}', (-32600, None)
    ),
    "params as an array": Case(
        '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}', (-32602, 5)
    ),
    "params as a string": Case(
        '{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}', (-32600, 6)
    ),
    "an unknown method": Case('{"jsonrpc":"2.0","id":7,"method":"no/such"}', (-32601, 7)),
    "an unknown method, string id": Case('{"jsonrpc":"2.0","id":"a","method":"x"}', (-32601, "a")),
    "jsonrpc 1.0": Case('{"jsonrpc":"1.0","id":8,"method":"ping"}', (-32600, 8)),
    "no jsonrpc member": Case('{"id":9,"method":"ping"}', (-32600, 9)),
    "a null id": Case('{"jsonrpc":"2.0","id":null,"method":"ping"}', (-32600, None)),
    "a fractional id": Case('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', (-32600, None)),
    "a boolean id": Case('{"jsonrpc":"2.0","id":true,"method":"ping"}', (-32600, None)),
    "an object id": Case('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', (-32600, None)),
    "tools/call without a name": Case(CALL % (10, "{}"), (-32602, 10), by_sdk=True),
    "tools/call with list arguments": Case(
        CALL % (11, '{"name":"find","arguments":[1]}'), (-32602, 11), by_sdk=True
    ),
    "a method MCP has but kgraph does not serve": Case(
        '{"jsonrpc":"2.0","id":12,"method":"resources/list"}', (-32601, 12), by_sdk=True
    ),
    "a blank line": Case("   ", None),
    "an unknown notification": Case('{"jsonrpc":"2.0","method":"notifications/nope"}', None, True),
    "a response with a boolean id": Case('{"jsonrpc":"2.0","id":true,"result":{}}', None),
    "a response whose result is a list": Case('{"jsonrpc":"2.0","id":40,"result":[]}', None),
    "a batch of notifications": Case('[{"jsonrpc":"2.0","method":"notifications/nope"}]', None),
}


def _reply_of(expected: Any) -> Any:
    """What ``expected`` looks like on the wire, minus each error's message."""
    if isinstance(expected, list):
        return [_reply_of(e) for e in expected]
    code, request_id = expected
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code}}


def _without_messages(reply: Any) -> Any:
    if isinstance(reply, list):
        return [_without_messages(r) for r in reply]
    error = reply["error"]
    assert isinstance(error["message"], str) and error["message"], reply
    return {**reply, "error": {"code": error["code"]}}


@pytest.mark.parametrize("name", CASES)
def test_the_screen(name: str) -> None:
    """What the transport does with the line: pass it to the session, or answer it."""
    case = CASES[name]
    verdict = to_session(case.line)
    if case.by_sdk:
        assert isinstance(verdict, SessionMessage)
        return
    assert isinstance(verdict, Answer)
    if case.reply is None:
        assert verdict.reply is None
    else:
        assert verdict.reply is not None
        assert _without_messages(json.loads(verdict.reply)) == _reply_of(case.reply)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    root = tmp_path_factory.mktemp("rawmcp")
    running = RawServer(root, isolated_env(tmp_path_factory.mktemp("home")))
    init = running.initialize()
    assert init["result"]["serverInfo"]["name"] == "kgraph"
    yield running
    assert running.close() == 0


@pytest.mark.parametrize("name", CASES)
def test_the_server_answers_and_goes_on(server: RawServer, name: str) -> None:
    case = CASES[name]
    got = server.exchange(case.line, replies=0 if case.reply is None else 1)
    if case.reply is None:
        assert got == []
    else:
        assert [_without_messages(r) for r in got] == [_reply_of(case.reply)]


def test_a_tool_call_after_garbage_is_answered(server: RawServer) -> None:
    for line in ("{", "[]", '{"jsonrpc":"2.0","id":"x","method":"nope"}', "\x00\xff"):
        server.send(line)
    reply = server.request("tools/call", {"name": "search", "arguments": {"query": "anything"}})
    assert reply["result"]["isError"] is False
    assert json.loads(reply["result"]["content"][0]["text"])["hits"] == []


def test_a_10_mb_argument_is_a_short_tool_error(server: RawServer) -> None:
    query = "x" * 10_000_000
    reply = server.request("tools/call", {"name": "search", "arguments": {"query": query}})
    text = reply["result"]["content"][0]["text"]
    assert reply["result"]["isError"] is True
    assert json.loads(text) == {"error": "query is 10,000,000 characters long (at most 10,000)"}


def test_invalid_utf8_is_replaced_not_fatal(server: RawServer) -> None:
    line = b'{"jsonrpc":"2.0","id":30,"method":"ping","x":"\xff"}'
    assert server.exchange(line, replies=1) == [{"jsonrpc": "2.0", "id": 30, "result": {}}]


def test_the_server_stops_cleanly_when_stdin_closes(tmp_path: Path) -> None:
    running = RawServer(tmp_path, isolated_env(tmp_path / "home"))
    running.send("{")
    assert running.close() == 0
