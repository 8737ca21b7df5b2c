"""Argument limits: every string and array has one, a call over it is refused before any
work, Args agrees with the JSON schema the client sees, and database failures are kgraph's
own one-line errors."""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import ClientSession

from kgraph.api import Project, WarmEmbedder
from kgraph.db import describe_failure, open_database
from kgraph.errors import InvalidValueError
from kgraph.mcp import TOOLS, tools
from kgraph.mcp.args import OBJECT_JSON_CHARS, Args, Schema
from tests.mcp.conftest import Result, call, session

BY_NAME = {t.name: t for t in TOOLS}


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    kg = Project(open_database(f"sqlite:///{tmp_path / 'k.db'}"), tmp_path, WarmEmbedder("fake"))
    yield kg
    kg.close()


class Spy:
    """Stands in for a tool's handler or ``Project.refresh``: records that it ran."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        return "{}"


@pytest.fixture
def spies(project: Project, monkeypatch: pytest.MonkeyPatch) -> dict[str, Spy]:
    """Every tool's handler and the project's refresh replaced by spies."""
    found = {"refresh": Spy()}
    monkeypatch.setattr(project, "refresh", found["refresh"])
    for spec in TOOLS:
        found[spec.name] = Spy()
        replaced = dataclasses.replace(spec, handler=found[spec.name])
        monkeypatch.setitem(tools._BY_NAME, spec.name, replaced)
    return found


def _walk(schema: Schema, where: str) -> Iterator[tuple[str, Schema]]:
    yield where, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _walk(sub, f"{where}.{name}")
    if "items" in schema:
        yield from _walk(schema["items"], f"{where}[]")


def test_every_string_and_array_has_a_limit() -> None:
    unbounded = [
        where
        for spec in TOOLS
        for where, sub in _walk(spec.schema, spec.name)
        if (sub.get("type") == "string" and "maxLength" not in sub)
        or (sub.get("type") == "array" and "maxItems" not in sub)
        or (sub.get("type") == "object" and "properties" not in sub and "maxProperties" not in sub)
    ]
    assert unbounded == []


def _valid(schema: Schema) -> Any:
    """A value ``schema`` accepts."""
    kind = schema["type"]
    if kind == "string":
        return schema["enum"][0] if "enum" in schema else "ok"
    if kind == "array":
        return [_valid(schema["items"])]
    if kind == "object":
        return {"k": "v"}
    return {"integer": schema.get("minimum"), "number": 0.5, "boolean": True}[kind]


def _required(spec: tools.ToolSpec) -> dict[str, Any]:
    return {k: _valid(spec.schema["properties"][k]) for k in spec.schema["required"]}


OVERSIZED = [
    (spec.name, name)
    for spec in TOOLS
    for name, sub in spec.schema["properties"].items()
    if sub["type"] in ("string", "array")
]


@pytest.mark.parametrize(("tool", "argument"), OVERSIZED)
def test_a_10_mb_argument_is_refused_before_any_work(
    project: Project, spies: dict[str, Spy], tool: str, argument: str
) -> None:
    schema = BY_NAME[tool].schema["properties"][argument]
    if schema["type"] == "string":
        value: Any = "x" * 10_000_000
        expected = f"{argument} is 10,000,000 characters long (at most {schema['maxLength']:,})"
    else:
        value = ["x"] * 1_000_000
        expected = f"{argument} has 1,000,000 entries (at most {schema['maxItems']:,})"
    text, is_error = tools.call(project, tool, {**_required(BY_NAME[tool]), argument: value}, 8_000)
    assert is_error and json.loads(text) == {"error": expected}
    assert spies[tool].calls == 0 and spies["refresh"].calls == 0


LISTS = [(t, a) for t, a in OVERSIZED if BY_NAME[t].schema["properties"][a]["type"] == "array"]


@pytest.mark.parametrize(("tool", "argument"), LISTS)
def test_an_oversized_list_entry_is_refused_by_position(
    project: Project, spies: dict[str, Spy], tool: str, argument: str
) -> None:
    schema = BY_NAME[tool].schema["properties"][argument]
    limit = schema["items"]["maxLength"]
    values = {**_required(BY_NAME[tool]), argument: [_valid(schema["items"]), "y" * 10_000_000]}
    text, is_error = tools.call(project, tool, values, 8_000)
    assert is_error
    assert f"{argument}[1] is 10,000,000 characters long (at most {limit:,})" in text
    assert spies[tool].calls == 0


def test_the_server_refuses_before_the_tool_runs(project: Project, spies: dict[str, Spy]) -> None:
    """Through the SDK: its own jsonschema check is off, so nothing echoes 10 MB back."""
    huge = "x" * 10_000_000

    async def body(client: ClientSession) -> list[Result]:
        return [
            Result(await client.call_tool("search", {"query": huge})),
            Result(
                await client.call_tool(
                    "workflow",
                    {"op": "log_action", "id": "wf-1", "action": huge, "result": "success"},
                )
            ),
            Result(await client.call_tool("get", {"ids": ["a"] * 1_000_000})),
        ]

    results = session(project, body)
    assert [r.is_error for r in results] == [True, True, True]
    assert all(len(r.text) < 200 for r in results), [r.text for r in results]
    assert "action is 10,000,000 characters long (at most 10,000)" in results[1].text
    assert spies["search"].calls == spies["workflow"].calls == spies["get"].calls == 0


def test_a_1_mb_name_is_refused_and_a_name_at_the_limit_is_searched(
    sample: tuple[Project, dict[str, str]],
) -> None:
    """A 1 MB name used to reach SQLite as a LIKE pattern: "pattern too complex"."""
    kg, _ids = sample
    refused = call(kg, "find", {"name": "%" * 1_000_000})
    assert refused.is_error
    assert refused.json() == {"error": "name is 1,000,000 characters long (at most 1,000)"}
    at_limit = call(kg, "find", {"name": "é%_" * 333 + "R"})
    assert not at_limit.is_error, at_limit.text
    assert at_limit.json()["matches"] == []


# Values of every kind for every argument: Args must refuse exactly what jsonschema does.
def _candidates(schema: Schema) -> list[Any]:
    kind = schema["type"]
    common: list[Any] = [None, "3", 3, 2.5, True, [], {}]
    if kind == "string":
        limit = schema["maxLength"]
        extra = [*schema.get("enum", []), "nope", "", "x" * limit, "x" * (limit + 1)]
    elif kind == "integer":
        low, high = schema["minimum"], schema["maximum"]
        extra = [low, high, low - 1, high + 1, float(low), float(high) + 0.5]
    elif kind == "number":
        extra = [schema["minimum"], schema["maximum"], -0.1, 1.5, math.inf]
    elif kind == "boolean":
        extra = [False, 0, "true"]
    elif kind == "array":
        item, limit = schema["items"], schema["maxItems"]
        extra = [
            [_valid(item)] * limit,
            [_valid(item)] * (limit + 1),
            "lone string",
            [5],
            *[[bad] for bad in _candidates(item) if not isinstance(bad, list)],
        ]
    else:
        count = schema["maxProperties"]
        extra = [{"k": [1, {"a": None}]}, {f"k{i}": i for i in range(count + 1)}]
    return common + extra


AGREEMENT = [
    (spec.name, name, value)
    for spec in TOOLS
    for name, sub in spec.schema["properties"].items()
    for value in _candidates(sub)
]


def _args_accept(schema: Schema, values: dict[str, Any]) -> bool:
    try:
        Args(values, schema)
    except InvalidValueError:
        return False
    return True


@pytest.mark.parametrize("tool", list(BY_NAME))
def test_args_accepts_exactly_what_the_schema_accepts(tool: str) -> None:
    spec = BY_NAME[tool]
    validator = jsonschema.validators.validator_for(spec.schema)(spec.schema)
    calls = [{**_required(spec), name: value} for t, name, value in AGREEMENT if t == tool]
    calls += [{}, {**_required(spec), "unknown": 1}]
    disagree = [
        (values, validator.is_valid(values))
        for values in calls
        if validator.is_valid(values) != _args_accept(spec.schema, values)
    ]
    assert disagree == []


def test_the_two_documented_differences() -> None:
    """An object's size as JSON (no JSON schema keyword says it) and NaN (which passes
    every bound in jsonschema): Args refuses both."""
    spec = BY_NAME["workflow"]
    big = {"op": "log_action", "metadata": {"k": "v" * OBJECT_JSON_CHARS}}
    assert jsonschema.validators.validator_for(spec.schema)(spec.schema).is_valid(big)
    with pytest.raises(
        InvalidValueError, match=r"^metadata is [\d,]+ characters as JSON \(at most 20,000\)$"
    ):
        Args(big, spec.schema)
    with pytest.raises(InvalidValueError, match="confidence must be between 0 and 1"):
        Args({"text": "t", "confidence": math.nan}, BY_NAME["learn"].schema)


def _operational_error(message: str) -> Exception:
    from sqlalchemy.exc import OperationalError

    statement = "SELECT id FROM entities WHERE name LIKE ? ESCAPE '\\'"
    return OperationalError(statement, ("x" * 5_000,), sqlite3.OperationalError(message))


@pytest.mark.parametrize(
    "error",
    [
        _operational_error("LIKE or GLOB pattern too complex"),
        sqlite3.OperationalError("LIKE or GLOB pattern too complex"),
    ],
    ids=["sqlalchemy", "sqlite3"],
)
def test_a_database_error_is_kgraphs_own_tool_error(
    project: Project, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(project, "search", failing)

    async def body(client: ClientSession) -> tuple[Result, Result]:
        failed = Result(await client.call_tool("search", {"query": "x"}))
        after = Result(await client.call_tool("learn", {"text": "The cache is per process"}))
        return failed, after

    failed, after = session(project, body)
    assert failed.is_error
    assert failed.json() == {
        "error": f"database {project.db.where}: LIKE or GLOB pattern too complex"
    }
    assert not after.is_error, after.text


def test_a_failure_that_is_not_the_database_s_is_left_alone() -> None:
    assert describe_failure(RuntimeError("disk on fire"), "k.db") is None
    assert describe_failure(ValueError("x"), "k.db") is None
