from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.hooks import runner
from kgraph.hooks.context import HookContext
from kgraph.hooks.runner import EVENTS, HookResult, contract_json, run_hook


def test_contract_json_shapes() -> None:
    data = json.loads(contract_json("session-start", "facts"))
    assert data == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "facts"}
    }
    data = json.loads(contract_json("user-prompt", "facts"))
    assert data["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    for event in ("stop", "pre-compact", "session-end"):
        assert contract_json(event, "anything") == ""  # never a decision or context from these
    assert contract_json("session-start", "  ") == ""


@pytest.mark.parametrize("variable", ["KGRAPH_DISABLED", "KGRAPH_INTERNAL"])
def test_disabled_and_internal_are_no_ops(
    variable: str, tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(runner, "_handler", lambda event: lambda ctx: calls.append(event) or "x")
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_repo)}).encode()
    for event in EVENTS:
        assert run_hook(event, payload, environ={variable: "1"}) == HookResult()
    assert calls == []
    assert not (tmp_repo / ".claude").exists()


def test_a_failing_handler_prints_nothing_and_logs(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(ctx: HookContext) -> str:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(runner, "_handler", lambda event: boom)
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_repo)}).encode()
    for event in EVENTS:
        assert run_hook(event, payload).stdout == ""
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "kaboom" in log and "RuntimeError" in log


def test_input_that_is_not_a_json_object_is_logged_not_silent(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_repo)  # no cwd in the input: the project is the current folder
    for data in (b"not json", b"[1, 2]", b""):
        assert run_hook("user-prompt", data).stdout == ""
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "user-prompt: the hook input is not JSON (8 bytes)" in log
    assert "user-prompt: the hook input is JSON but not an object (list)" in log
    assert "user-prompt: the hook input was empty" in log


def test_system_exit_and_keyboard_interrupt_are_contained(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for exc in (SystemExit(2), KeyboardInterrupt()):

        def raise_it(ctx: HookContext, exc: BaseException = exc) -> str:
            raise exc

        monkeypatch.setattr(runner, "_handler", lambda event, f=raise_it: f)
        payload = json.dumps({"cwd": str(tmp_repo)}).encode()
        assert run_hook("session-start", payload).stdout == ""
        assert run_hook("stop", payload).stdout == ""


def test_the_deadline_returns_the_partial_context(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_repo / ".claude").mkdir(exist_ok=True)
    (tmp_repo / ".claude" / "kgraph.toml").write_text("[hooks]\nsession_start_deadline_s = 0.1\n")
    monkeypatch.setattr(runner, "HARD_STOP_GRACE_S", 0.05)

    finalized: list[str | None] = []

    def slow(ctx: HookContext) -> str:
        ctx.finalizers.append(lambda: finalized.append(ctx.published()[0]))
        ctx.publish("partial facts")
        time.sleep(3)
        return "complete facts"

    monkeypatch.setattr(runner, "_handler", lambda event: slow)
    started = time.monotonic()
    result = run_hook("session-start", json.dumps({"cwd": str(tmp_repo)}).encode())
    assert time.monotonic() - started < 2
    assert result.abandoned
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "partial facts"
    assert finalized == ["partial facts"]  # finalizers run, and see what was printed


def test_subagent_input_is_skipped(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_handler", lambda event: lambda ctx: "facts")
    payload = json.dumps({"cwd": str(tmp_repo), "agent_id": "a123"}).encode()
    assert run_hook("session-start", payload).stdout == ""
    payload = json.dumps({"cwd": str(tmp_repo)}).encode()
    assert run_hook("session-start", payload).stdout != ""


def test_unknown_event_is_a_no_op(hook: Callable[..., HookResult]) -> None:
    assert hook("post-tool-use") == HookResult()


def test_a_hook_on_a_server_asks_the_worker_to_refresh_its_copy_once(
    tmp_repo: Path, pg_server: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.db import open_database
    from kgraph.runtime import queue

    url = pg_server.fresh_url()  # type: ignore[attr-defined]
    open_database(url).close()
    monkeypatch.setenv("KGRAPH_DB", url)
    payload = {
        "session_id": "s1",
        "cwd": str(tmp_repo),
        "tool_name": "Read",
        "tool_input": {"file_path": str(tmp_repo / "README.md")},
    }
    for _ in range(3):  # no copy yet: the first hook asks, the next ones see it asked
        run_hook("post-tool-use", json.dumps(payload).encode())
    assert [p.name.split("-")[1] for p in queue.pending(tmp_repo)] == ["refresh"]
