"""Every tool through the SDK's in-memory client: results, caps, errors as tool errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import ClientSession

from kgraph.api import Project
from kgraph.db import open_database
from kgraph.knowledge import add_item
from kgraph.mcp import TOOL_NAMES
from tests.api.sample import open_sample
from tests.mcp.conftest import Result, call, session


def test_tools_are_listed_with_descriptions_and_schemas(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, _ids = sample

    async def body(client: ClientSession) -> Any:
        return (await client.list_tools()).tools

    tools = session(kg, body)
    assert tuple(t.name for t in tools) == TOOL_NAMES
    assert set(TOOL_NAMES) == {
        "search", "get", "recall", "context_for", "what_calls", "blast_radius", "find",
        "exports", "workflow", "learn", "review",
    }  # fmt: skip
    for tool in tools:
        assert len(tool.description or "") > 80  # says when to use it
        assert tool.inputSchema["additionalProperties"] is False
    read_only = {t.name for t in tools if t.annotations and t.annotations.readOnlyHint}
    assert read_only.isdisjoint({"learn", "workflow", "recall", "review"})


# (tool, arguments, what the result must show) — every tool, on the sample project.
CALLS: list[tuple[str, dict[str, Any], Any]] = [
    ("search", {"query": "engine deadlocks"},
     lambda r, ids: r["hits"][0]["id"] == ids["open_store"]),
    ("search", {"query": "store database", "limit": 1}, lambda r, ids: "offset=1" in r["more"]),
    ("get", {"ids": ["ID:open_store"]}, lambda r, ids: "WAL lock" in r["items"][0]["content"]),
    ("get", {"ids": ["ID:open_store"], "related": True},
     lambda r, ids: ids["repo.save"] in {x["id"] for x in r["items"][0]["related"]}),
    ("recall", {"prompt": "why does open_store hang?"},
     lambda r, ids: ids["open_store"] in {i["id"] for i in r["items"]}
     and "defines open_store" in r["items"][0]["why"]),
    ("context_for", {"files": ["app/repo.py"], "branch": "issue-15"},
     lambda r, ids: ids["open_store"] in r["item_ids"] and "checkpoint" in r["context"]),
    ("what_calls", {"name": "open_store"},
     lambda r, ids: {c["caller"] for c in r["callers"]} == {"Repo.save", "Repo.load", "main"}),
    ("blast_radius", {"name": "open_store", "depth": 3},
     lambda r, ids: {f["file"] for f in r["files"]} >= {"app/cli.py", "app/web.py"}
     and any(f.get("test") for f in r["files"])),
    ("find", {"name": "Repo"}, lambda r, ids: r["matches"][0]["id"] == "app/repo.py::Repo"),
    ("exports", {"file": "app/repo.py"},
     lambda r, ids: {e["id"] for e in r["exports"]} >= {"app/repo.py::Repo"}),
    ("workflow", {"op": "find", "issue": 15},
     lambda r, ids: r["workflow"]["id"] == ids["workflow"]),
    ("workflow", {"op": "list", "active": True}, lambda r, ids: len(r["workflows"]) == 1),
    ("workflow", {"op": "log_action", "id": "ID:workflow", "action": "tests", "result": "success"},
     lambda r, ids: r["workflow"]["recent_actions"] == [{"action": "tests", "result": "success"}]),
    ("workflow", {"op": "create", "issue": 16, "branch": "issue-16"},
     lambda r, ids: r["workflow"]["phase"] == "research"),
    ("learn", {"text": "Repo.load must not run before migrations", "files": ["app/repo.py"]},
     lambda r, ids: r["created"] and r["files"] == ["app/repo.py"] and r["embedded"]),
]  # fmt: skip


def _resolve(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str) and value.startswith("ID:"):
        return ids[value[3:]]
    if isinstance(value, list):
        return [_resolve(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, ids) for k, v in value.items()}
    return value


@pytest.mark.parametrize(("tool", "arguments", "expect"), CALLS)
def test_every_tool_answers(
    sample: tuple[Project, dict[str, str]], tool: str, arguments: dict[str, Any], expect: Any
) -> None:
    kg, ids = sample
    result = call(kg, tool, _resolve(arguments, ids))
    assert not result.is_error, result.text
    assert len(result.text) <= 8_000
    assert expect(result.json(), ids)


def test_the_recall_tool_speaks_the_prompt_hooks_json(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    found = call(kg, "recall", {"prompt": "payment webhooks retried", "format": "hook"})
    output = found.json()["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    assert ids["payment"] in output["additionalContext"]
    assert call(kg, "recall", {"prompt": "the and of", "format": "hook"}).text == ""


@pytest.mark.parametrize("max_chars", [600, 2_000])
def test_no_result_exceeds_its_cap(tmp_path: Any, max_chars: int) -> None:
    kg, ids = open_sample(tmp_path, extra_items=40)
    try:
        for tool, arguments, _expect in CALLS:
            if tool in ("learn", "workflow") and "op" not in arguments:
                continue
            result = call(kg, tool, _resolve(arguments, ids), max_chars=max_chars)
            assert not result.is_error, (tool, result.text)
            assert len(result.text) <= max_chars, tool
            json.loads(result.text)  # still valid JSON
        big = call(kg, "search", {"query": "store write-ahead log", "limit": 50}, max_chars)
        page = big.json()
        assert page["truncated"] is True and page["shown"] == len(page["hits"]) < 50
        assert "offset=" in page["more"]
    finally:
        kg.close()


# Bad input of every kind: a tool error with a one-line message, never a crash.
BAD: list[tuple[str, dict[str, Any], str]] = [
    ("search", {}, "query"),
    ("search", {"query": 42}, "string"),
    ("search", {"query": "x", "limit": 0}, "limit must be between 1 and 50 (got 0)"),
    ("search", {"query": "x", "color": "red"}, "color"),
    ("search", {"query": "   "}, "empty"),
    ("get", {"ids": ["lrn-nothing"]}, "lrn-nothing"),
    ("get", {"ids": []}, "id"),
    ("what_calls", {"name": "no_such_function"}, "no_such_function"),
    ("what_calls", {"name": "save"}, "save"),  # fine: one 'save'
    ("blast_radius", {"name": "open_store", "depth": 99}, "depth must be between 1 and 6"),
    ("exports", {"file": "missing.py"}, "not in the code graph"),
    ("workflow", {"op": "explode"}, "explode"),
    ("workflow", {"op": "get"}, "needs id"),
    ("workflow", {"op": "get", "id": "wf-nope"}, "wf-nope"),
    ("workflow", {"op": "set_phase", "id": "ID:workflow", "phase": "dreaming"}, "dreaming"),
    ("learn", {"text": "ok", "type": "rumour"}, "rumour"),
    ("context_for", {}, "files"),
    ("nonexistent_tool", {}, "nonexistent_tool"),
]


@pytest.mark.parametrize(("tool", "arguments", "mentions"), BAD)
def test_bad_input_is_a_tool_error(
    sample: tuple[Project, dict[str, str]], tool: str, arguments: dict[str, Any], mentions: str
) -> None:
    kg, ids = sample
    result = call(kg, tool, _resolve(arguments, ids))
    if tool == "what_calls" and arguments["name"] == "save":
        assert not result.is_error
        return
    assert result.is_error, result.text
    assert mentions in result.text
    assert "\n" not in result.text


def test_an_ambiguous_name_lists_the_candidates(tmp_path: Any) -> None:
    kg, _ids = open_sample(tmp_path)
    (kg.root / "app" / "other.py").write_text("def open_store():\n    pass\n")
    kg.graph.parse()
    try:
        result = call(kg, "what_calls", {"name": "open_store"})
        assert result.is_error
        assert "ambiguous" in result.text and "app/other.py::open_store" in result.text
    finally:
        kg.close()


def test_an_unexpected_failure_is_a_tool_error_and_the_server_goes_on(
    sample: tuple[Project, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    kg, _ids = sample

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(kg, "search", broken)

    async def body(client: ClientSession) -> tuple[Result, Result]:
        first = Result(await client.call_tool("search", {"query": "x"}))
        second = Result(await client.call_tool("find", {"name": "Repo"}))
        return first, second

    failed, after = session(kg, body)
    assert failed.is_error and "internal error: RuntimeError: disk on fire" in failed.text
    assert not after.is_error


def test_each_call_reads_fresh_rows(sample: tuple[Project, dict[str, str]]) -> None:
    kg, _ids = sample

    async def body(client: ClientSession) -> tuple[Result, Result]:
        before = Result(await client.call_tool("search", {"query": "quantum flux"}))
        other = open_database(kg.db.url)  # another process's write, meanwhile
        add_item(other, "The quantum flux capacitor needs 1.21 gigawatts")
        other.close()
        after = Result(await client.call_tool("search", {"query": "quantum flux"}))
        return before, after

    before, after = session(kg, body)
    assert before.json()["hits"] == []
    assert after.json()["hits"][0]["summary"].startswith("The quantum flux")


def test_learn_redacts_secrets(sample: tuple[Project, dict[str, str]]) -> None:
    kg, _ids = sample
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    stored = call(kg, "learn", {"text": f"The CI key is {secret}, rotate it monthly"}).json()
    assert secret not in kg.get(stored["id"]).content


def test_the_review_tool_lists_candidates_and_takes_verdicts(
    sample: tuple[Project, dict[str, str]],
) -> None:
    from tests.knowledge.test_candidates import CAUSE, OTHER, capture

    kg, _ids = sample
    kept = capture(kg.db, CAUSE, "s1").entity_id
    dropped = capture(kg.db, OTHER, "s1").entity_id
    listed = call(kg, "review", {}).json()
    assert {c["id"] for c in listed["candidates"]} == {kept, dropped}
    assert {c["origin"] for c in listed["candidates"]} == {"explanation"}
    done = call(kg, "review", {"accept": [kept], "reject": [dropped]}).json()
    assert done == {"accepted": [kept], "rejected": [dropped]}
    assert call(kg, "review", {}).json()["candidates"] == []
    assert kg.get(kept).active and not kg.get(dropped).active
    assert call(kg, "review", {"accept": ["no-such-id"]}).is_error
