"""The checkpoint commands' fast path (kgraph.cli.checkpoint_fast): only the exact shapes
skip Click, they print and fail as the Click commands do, and a process of each imports
none of the heavy modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest

from kgraph import checkpoint
from kgraph.cli.checkpoint_fast import SHAPES, parse_checkpoint_call
from kgraph.cli.entry import FAST_COMMANDS, run_fast_command
from kgraph.cli.main import cli
from kgraph.db import open_database
from tests.conftest import CliResult

HEAVY = {"sqlalchemy", "alembic", "networkx", "torch", "sentence_transformers", "requests", "click"}


def click_command(group: str, name: str) -> click.Command:
    ctx = click.Context(cli)
    parent = cli.get_command(ctx, group)
    assert isinstance(parent, click.Group)
    command = parent.get_command(ctx, name)
    assert command is not None
    return command


def click_choices(param: click.Parameter) -> tuple[str, ...] | None:
    return tuple(param.type.choices) if isinstance(param.type, click.Choice) else None


@pytest.mark.parametrize("key", sorted(SHAPES), ids=" ".join)
def test_every_shape_is_its_click_commands(key: tuple[str, str]) -> None:
    """Same arguments in order, same options, flags, defaults and required ones; a value
    the shape takes is one Click takes (its choices, its number range)."""
    _body, params = SHAPES[key]
    command = click_command(*key)
    clicks = [p for p in command.params if p.name != "help"]
    assert [p.name for p in params] == [p.name for p in clicks]
    for mine, theirs in zip(params, clicks, strict=True):
        if isinstance(theirs, click.Option):
            assert theirs.opts == [mine.option] and not theirs.secondary_opts
            assert theirs.is_flag == (mine.convert is None)
            default = theirs.get_default(click.Context(command))  # Click's "unset": None
            assert (default if isinstance(default, str | int) else None) == mine.default
            assert theirs.required == mine.required
        else:
            assert mine.option is None
        choices = click_choices(theirs)
        if choices is not None:
            assert mine.convert is not None
            assert all(mine.convert(c) == c for c in choices)
            with pytest.raises(ValueError):
                mine.convert(choices[0].upper())
        if isinstance(theirs.type, click.IntRange):
            assert mine.convert is not None
            assert mine.convert(str(theirs.type.min)) == theirs.type.min
            with pytest.raises(ValueError):
                mine.convert(str(theirs.type.min - 1))


def values(argv: list[str]) -> dict[str, Any] | None:
    call = parse_checkpoint_call(argv)
    return None if call is None else call.values


def test_the_exact_shapes_are_taken() -> None:
    assert values(["workflow", "log-action", "wf-1", "run tests", "failed"]) == {
        "workflow_id": "wf-1",
        "action": "run tests",
        "result": "failed",
        "metadata": None,
        "as_json": False,
    }
    assert values(["--db", "/x.db", "workflow", "find", "12", "--json"]) == {
        "issue": 12,
        "as_json": True,
    }
    assert values(["--db=/x.db", "workflow", "list", "--limit=3", "--active"]) == {
        "status": None,
        "active": True,
        "limit": 3,
        "as_json": False,
    }
    assert values(["workflow", "create", "--phase", "review", "9", "feat/9", "--json"]) == {
        "issue": 9,
        "branch": "feat/9",
        "worktree": None,
        "phase": "review",
        "as_json": True,
    }
    logged = values(["workflow", "log-action", "wf-1", "x", "success", "--metadata", '{"n": 3}'])
    assert logged is not None and logged["metadata"] == {"n": 3}
    call = parse_checkpoint_call(
        ["--db", "/x.db", "milestone", "add-workflow", "ms", "wf", "--wave", "2"]
    )
    assert call is not None and call.db_url == "/x.db" and call.values["wave"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["workflow", "log-action", "wf-1", "x", "success", "--help"],
        ["workflow", "log-action", "wf-1", "x", "maybe"],
        ["workflow", "log-action", "wf-1", "x", "success", "--metadata", "[1]"],
        ["workflow", "log-action", "wf-1", "x", "success", "--metadata", "{oops"],
        ["workflow", "log-action", "wf-1", "x", "success", "--metadata", '{"a": NaN}'],
        ["workflow", "log-action", "wf-1", "x", "success", "--metadata"],
        ["workflow", "log-action", "wf-1", "-", "success"],
        ["workflow", "find", "+5"],
        ["workflow", "find", "-5"],
        ["workflow", "find", "1_000"],
        ["workflow", "find", str(2**63)],
        ["workflow", "find", "5", "6"],
        ["workflow", "find"],
        ["workflow", "list", "--limit", "0"],
        ["workflow", "list", "--json=yes"],
        ["workflow", "create", "1", "b", "--json", "--json"],
        ["workflow", "create", "1", "b", "--worktree", "-x"],
        ["workflow", "create", "1", "b", "--", "--json"],
        ["workflow", "set-phase", "wf-1", "Implement"],
        ["workflow", "delete", "wf-1"],
        ["workflow", "get", "wf-\udcff"],
        ["milestone", "add-workflow", "ms", "wf"],
        ["milestone", "create", "v1", "--github-number", "-1"],
        ["workflow"],
        ["--db", "workflow"],
        ["knowledge", "list"],
        [],
    ],
    ids=repr,
)
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert parse_checkpoint_call(argv) is None


def test_every_fast_family_is_a_function_of_the_argument_list() -> None:
    import importlib

    for target in FAST_COMMANDS.values():
        module, _, name = target.partition(":")
        assert callable(getattr(importlib.import_module(module), name))
    assert run_fast_command(["knowledge", "list"]) is None
    assert run_fast_command([]) is None


# --- the fast path in-process, beside the Click command ------------------------------------


@pytest.fixture
def fast(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., CliResult]:
    """Run ``kgraph ARGS`` through the fast path in this process; it must take the line."""
    monkeypatch.setenv("KGRAPH_DB", str(db_path))
    monkeypatch.chdir(db_path.parent)

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = run_fast_command(list(args))
        out, err = capsys.readouterr()
        assert code is not None, f"{args} went to Click"
        return CliResult(code, out, err)

    return run


@pytest.fixture
def workflow_id(db_path: Path) -> str:
    db = open_database(f"sqlite:///{db_path}")
    wf = checkpoint.create_workflow(db, 42, "feat/42", worktree="/wt/42")
    checkpoint.log_action(db, wf.id, "plan", "success", {"files": ["a.py"]})
    checkpoint.log_commit(db, wf.id, "abc123", "feat: parser")
    ms = checkpoint.create_milestone(db, "v1.2", 7)
    checkpoint.add_workflow_to_milestone(db, ms.id, wf.id, 2)
    db.close()
    return wf.id


def milestone_id(db_path: Path) -> str:
    db = open_database(f"sqlite:///{db_path}")
    found = checkpoint.find_milestone(db, "v1.2")
    db.close()
    assert found is not None
    return found.id


@pytest.mark.parametrize(
    "args",
    [
        ["workflow", "get", "{wf}"],
        ["workflow", "get", "{wf}", "--json"],
        ["workflow", "find", "42"],
        ["workflow", "find", "42", "--json"],
        ["workflow", "find", "999"],
        ["workflow", "find", "999", "--json"],
        ["workflow", "list"],
        ["workflow", "list", "--active", "--limit", "5", "--json"],
        ["workflow", "list", "--status", "failed"],
        ["workflow", "get", "wf-missing"],
        ["workflow", "set-phase", "wf-missing", "review"],
        ["workflow", "log-action", "{wf}", " ", "success"],
        ["workflow", "log-commit", "{wf}", "", "message"],
        ["workflow", "create", "1", " "],
        ["milestone", "get", "{ms}"],
        ["milestone", "get", "{ms}", "--json"],
        ["milestone", "find", "v1.2", "--json"],
        ["milestone", "find", "nope"],
        ["milestone", "list"],
        ["milestone", "list", "--status", "running", "--json"],
        ["milestone", "get", "ms-missing"],
        ["milestone", "add-workflow", "{ms}", "wf-missing", "--wave", "1"],
    ],
    ids=" ".join,
)
def test_reads_and_failures_are_the_click_commands(
    args: list[str],
    fast: Callable[..., CliResult],
    run_kgraph: Callable[..., CliResult],
    workflow_id: str,
    db_path: Path,
) -> None:
    ids = {"{wf}": workflow_id, "{ms}": milestone_id(db_path)}
    line = [ids.get(a, a) for a in args]
    by_click = run_kgraph(*line)
    by_fast = fast(*line)
    assert (by_fast.returncode, by_fast.stdout, by_fast.stderr) == (
        by_click.returncode,
        by_click.stdout,
        by_click.stderr,
    )


def without_stamps(text: str) -> Any:
    """A command's JSON with what differs between two runs (ids, times) left out."""
    drop = {"id", "created_at", "updated_at", "workflow_id"}

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(text))


def test_writes_print_what_the_click_commands_print(
    fast: Callable[..., CliResult], run_kgraph: Callable[..., CliResult], workflow_id: str
) -> None:
    made = {}
    for name, run in (("fast", fast), ("click", run_kgraph)):
        created = run("workflow", "create", "7", "feat/7", "--worktree", "/wt", "--json")
        wf = json.loads(created.stdout)["id"]
        lines = [
            without_stamps(created.stdout),
            run("workflow", "set-phase", wf, "implement").stdout.replace(wf, "ID"),
            run("workflow", "set-status", wf, "failed", "--json").stdout,
            run("workflow", "set-status", wf, "running").stdout.replace(wf, "ID"),
            run("workflow", "log-action", wf, "tests", "failed", "--metadata", '{"n": 3}').stdout,
            run("workflow", "log-commit", wf, "abc", "feat: x", "--json").stdout,
            run("milestone", "create", f"m-{name}", "--github-number", "3", "--json").stdout,
        ]
        ms = json.loads(lines[-1])["id"]
        lines += [
            run("milestone", "set-phase", ms, "execute").stdout.replace(ms, "ID"),
            run("milestone", "set-status", ms, "paused", "--json").stdout,
            run("milestone", "add-workflow", ms, wf, "--wave", "2").stdout,
        ]
        made[name] = [
            line.replace(wf, "WF").replace(ms, "MS").replace(f"m-{name}", "M")
            if isinstance(line, str)
            else line
            for line in lines
        ]
        made[name][2:] = [
            without_stamps(line) if line.startswith(("{", "[")) else line for line in made[name][2:]
        ]
    assert made["fast"] == made["click"]


def test_every_planted_secret_is_redacted_on_the_fast_path(
    fast: Callable[..., CliResult], workflow_id: str, db_path: Path
) -> None:
    """The redaction-everywhere secrets, written through each fast write command."""
    from tests.test_redaction_everywhere import ALL, SECRETS

    metadata = json.dumps({"command": ALL, ALL: [ALL]})
    created = fast("workflow", "create", "9", f"feat/{ALL}", "--worktree", ALL, "--json")
    assert created.returncode == 0, created.stderr
    for args in (
        ["workflow", "log-action", workflow_id, ALL, "failed", "--metadata", metadata],
        ["workflow", "log-commit", workflow_id, ALL, ALL],
        ["milestone", "create", ALL],
    ):
        assert fast(*args).returncode == 0, args
    leaks = [
        (written.name, kind)
        for written in db_path.parent.glob(f"{db_path.name}*")
        for kind, _, needle in SECRETS
        if needle.encode() in written.read_bytes()
    ]
    assert leaks == []


def test_a_database_to_create_goes_to_click(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = tmp_path / "new.db"
    monkeypatch.setenv("KGRAPH_DB", str(new))
    assert run_fast_command(["workflow", "list", "--json"]) is None
    assert not new.exists()


# --- a process of each command: its imports ------------------------------------------------

COMMANDS = [
    ["workflow", "create", "8", "feat/8", "--json"],
    ["workflow", "set-phase", "{wf}", "implement"],
    ["workflow", "set-status", "{wf}", "paused", "--json"],
    ["workflow", "log-action", "{wf}", "run-tests", "failed", "--metadata", '{"failed": 3}'],
    ["workflow", "log-commit", "{wf}", "abc123", "feat: add parser"],
    ["workflow", "find", "42", "--json"],
    ["workflow", "get", "{wf}", "--json"],
    ["workflow", "list", "--json"],
    ["milestone", "create", "v2", "--json"],
    ["milestone", "set-phase", "{ms}", "execute"],
    ["milestone", "find", "v1.2", "--json"],
    ["milestone", "get", "{ms}", "--json"],
    ["milestone", "list", "--json"],
    ["milestone", "add-workflow", "{ms}", "{wf}", "--wave", "3"],
]


def imported_by(
    args: list[str], db_path: Path
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``python -X importtime -m kgraph.cli.entry ARGS``: the process and the top-level
    packages it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kgraph.cli.entry", *args],
        cwd=db_path.parent,
        env={**os.environ, "KGRAPH_DB": str(db_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    loaded = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    return proc, loaded


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_checkpoint_command_imports_nothing_heavy(
    args: list[str], workflow_id: str, db_path: Path
) -> None:
    ids = {"{wf}": workflow_id, "{ms}": milestone_id(db_path)}
    proc, loaded = imported_by([ids.get(a, a) for a in args], db_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "sqlite3" in loaded
    assert not loaded & (HEAVY | {"detect_secrets", "rich"})


def test_text_that_may_hold_a_secret_is_scanned_thoroughly_without_requests(
    workflow_id: str, db_path: Path
) -> None:
    key = "0123456789abcdef0123456789abcdef-us12"  # a Mailchimp key: detect-secrets' plugin
    proc, loaded = imported_by(
        ["workflow", "log-action", workflow_id, f"deploy with {key}", "success", "--json"],
        db_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "detect_secrets" in loaded and not loaded & HEAVY
    stored = json.loads(proc.stdout)["actions"][-1]["action"]
    assert stored == "deploy with [REDACTED:mailchimp]"
    for written in db_path.parent.glob(f"{db_path.name}*"):  # the file and its WAL
        assert key.encode() not in written.read_bytes()
