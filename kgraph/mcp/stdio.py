"""The stdio transport: the SDK's ``mcp.server.stdio.stdio_server`` with a screen between
stdin and the session (kgraph.mcp.jsonrpc), so every malformed request is answered.

The SDK's transport parses each line and hands a parse failure to the session as an
exception, which the session logs and drops: the client is never told. It cannot be
wrapped from outside — its replies go through the session's write stream, which carries
only messages with a string or integer id, while a parse error must say ``"id": null`` —
so this is the same ~40 lines with the screen in the reader. One writer task owns stdout:
the session's messages and the screen's replies share one stream, so lines never
interleave. Framing is unchanged (newline-delimited JSON, UTF-8), as Claude Code speaks it.
"""

from __future__ import annotations

import logging
import sys
import typing
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from io import TextIOWrapper

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from kgraph.mcp.handshake import Prelude
from kgraph.mcp.jsonrpc import INVALID_REQUEST, Answer, dumps, error_reply, readable_id, screen

log = logging.getLogger("kgraph.mcp")

Outgoing = SessionMessage | str  # a message from the session, or a reply line from the screen


@cache
def request_methods() -> frozenset[str]:
    """Every request method MCP defines (the SDK's ClientRequest union): any other method
    with an id is answered -32601 by the screen."""
    members = typing.get_args(types.ClientRequestType)
    return frozenset(
        method
        for member in members
        for method in typing.get_args(member.model_fields["method"].annotation)
    )


def to_session(line: str) -> SessionMessage | Answer:
    """The line as the session's message, or the answer to send instead."""
    verdict = screen(line, request_methods())
    if isinstance(verdict, Answer):
        return verdict
    try:
        return SessionMessage(types.JSONRPCMessage.model_validate(verdict.message))
    except ValidationError as exc:  # the screen let through what the SDK's model refuses
        text = f"Invalid Request: {exc.errors()[0]['msg']}"
        request_id = readable_id(verdict.message)
        if request_id is None or "method" not in verdict.message:
            return Answer(None, text)
        return Answer(dumps(error_reply(INVALID_REQUEST, text, request_id)), text)


@asynccontextmanager
async def screened_stdio(
    stdin: anyio.AsyncFile[str] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
    prelude: Prelude | None = None,
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[Outgoing]]
]:
    """(read stream, write stream) for ``Server.run``, over this process's stdin/stdout.

    ``prelude``: lines read before the SDK started, handled first; the session's answer
    to the ``initialize`` already answered there is dropped (kgraph.mcp.handshake)."""
    prelude = prelude or Prelude()
    answered = [prelude.answered_id] if prelude.answered_id is not None else []
    if stdin is None:
        stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    if stdout is None:
        stdout = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[Outgoing](0)
    replies = outgoing.clone()

    async def handle(line: str) -> None:
        verdict = to_session(line)
        if isinstance(verdict, SessionMessage):
            await incoming_send.send(verdict)
            return
        if verdict.reply is not None:
            await replies.send(verdict.reply)
        log.warning("malformed message: %s", verdict.reason)

    def already_answered(item: SessionMessage) -> bool:
        root = item.message.root
        response = isinstance(root, types.JSONRPCResponse | types.JSONRPCError)
        if answered and response and getattr(root, "id", None) == answered[0]:
            answered.clear()
            return True
        return False

    async def read() -> None:
        try:
            async with incoming_send, replies:
                for line in prelude.lines:
                    await handle(line)
                async for line in stdin:
                    await handle(line)
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async def write() -> None:
        try:
            async with outgoing_receive:
                async for item in outgoing_receive:
                    if isinstance(item, SessionMessage):
                        if already_answered(item):
                            continue
                        item = item.message.model_dump_json(by_alias=True, exclude_none=True)
                    await stdout.write(item + "\n")
                    await stdout.flush()
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(read)
        tg.start_soon(write)
        yield incoming, outgoing
