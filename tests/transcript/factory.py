"""Builders for synthetic transcript lines shaped like Claude Code 2.1.x output."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

_counter = itertools.count()


def _uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_counter):012d}"


class Session:
    """Appends linked lines (parentUuid chain) and writes them as JSONL."""

    def __init__(
        self,
        session_id: str = "sess-1",
        cwd: str = "/work/app",
        sidechain: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.lines: list[dict[str, Any]] = []
        self.last_uuid: str | None = None
        self.second = 0

    def _envelope(self, type_: str, **fields: Any) -> dict[str, Any]:
        uuid = _uuid()
        self.second += 1
        entry: dict[str, Any] = {
            "parentUuid": self.last_uuid,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.39",
            "gitBranch": "main",
            "type": type_,
            "uuid": uuid,
            "timestamp": f"2026-02-01T10:{self.second // 60 % 60:02d}:{self.second % 60:02d}.123Z",
        }
        if self.agent_id:
            entry["agentId"] = self.agent_id
        entry.update(fields)
        self.lines.append(entry)
        self.last_uuid = uuid
        return entry

    def prompt(self, text: str, **fields: Any) -> dict[str, Any]:
        return self._envelope("user", message={"role": "user", "content": text}, **fields)

    def text(
        self, text: str, msg_id: str | None = None, stop_reason: str | None = None
    ) -> dict[str, Any]:
        return self._envelope(
            "assistant",
            message={
                "id": msg_id or f"msg_{next(_counter)}",
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "text", "text": text}],
                "stop_reason": stop_reason,
            },
        )

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str = "ok",
        *,
        is_error: bool = False,
        tool_use_result: Any = None,
        tool_id: str | None = None,
    ) -> str:
        tool_id = tool_id or f"toolu_{next(_counter):06d}"
        self._envelope(
            "assistant",
            message={
                "id": f"msg_{next(_counter)}",
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
                "stop_reason": None,
            },
        )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": result}
        if is_error:
            block["is_error"] = True
        extra = {} if tool_use_result is None else {"toolUseResult": tool_use_result}
        self._envelope("user", message={"role": "user", "content": [block]}, **extra)
        return tool_id

    def system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        return self._envelope("system", subtype=subtype, content="", level="info", **fields)

    def raw(self, obj: dict[str, Any]) -> None:
        self.lines.append(obj)

    def text_lines(self) -> list[str]:
        return [json.dumps(line) for line in self.lines]

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in self.text_lines()), encoding="utf-8")
        return path
