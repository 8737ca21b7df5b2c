"""``kgraph workflow`` and ``kgraph milestone`` commands without Click or SQLAlchemy.

A skill runs these many times a session (create a workflow, set its phase, log each action
and commit, find it again after compaction), each as a process of its own whose work is one
short transaction; importing Click, SQLAlchemy, the models and detect-secrets took ~30x
that work (issue 36). The console script (kgraph.cli.entry) hands its argument list here
first. A command line of exactly one of these shapes (options anywhere after the command,
each at most once, ``--opt VALUE`` or ``--opt=VALUE``)::

    kgraph [--db URL] workflow create ISSUE BRANCH [--worktree PATH] [--phase PHASE] [--json]
    kgraph [--db URL] workflow get ID [--json]
    kgraph [--db URL] workflow find ISSUE [--json]
    kgraph [--db URL] workflow list [--status STATUS] [--active] [--limit N] [--json]
    kgraph [--db URL] workflow set-phase ID PHASE [--json]
    kgraph [--db URL] workflow set-status ID STATUS [--json]
    kgraph [--db URL] workflow log-action ID ACTION RESULT [--metadata JSON] [--json]
    kgraph [--db URL] workflow log-commit ID SHA MESSAGE [--json]
    kgraph [--db URL] milestone create NAME [--github-number N] [--phase PHASE] [--json]
    kgraph [--db URL] milestone get ID [--json]
    kgraph [--db URL] milestone find NAME [--json]
    kgraph [--db URL] milestone list [--status STATUS] [--json]
    kgraph [--db URL] milestone set-phase ID PHASE [--json]
    kgraph [--db URL] milestone set-status ID STATUS [--json]
    kgraph [--db URL] milestone add-workflow MILESTONE WORKFLOW --wave N [--json]

runs the command's body (kgraph.cli.checkpoints, which the Click command runs too) on the
database's driver alone (kgraph.db.open_direct), failing as the Click command fails
(kgraph.cli.failures). Anything else returns None before doing anything, and Click runs
it: help, a typo, an option spelled another way or given twice, a value Click would refuse
or read differently (it says so in its own words), a database to create or migrate.
tests/cli/test_checkpoint_fast.py checks every shape against its Click command.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from kgraph.checkpoint import ACTION_RESULTS, PHASES, STATUSES
from kgraph.cli import checkpoints as commands
from kgraph.cli.entry import split_db, valid_text
from kgraph.jsontext import json_problem
from kgraph.limits import JSON_CHARS

__all__ = ["SHAPES", "CheckpointCall", "Param", "parse_checkpoint_call", "run_checkpoint_call"]

INT64_MAX = 2**63 - 1  # what SQLite stores (kgraph.cli.common.INT64_MAX)
_NUMBER = r"[0-9]{1,19}"


def text(value: str) -> str:
    return value


def number(least: int, most: int = INT64_MAX) -> Callable[[str], int]:
    """Digits only (Click's int() also reads ``+7``, `` 7`` and ``1_000``: those go to it)."""

    def convert(value: str) -> int:
        if not re.fullmatch(_NUMBER, value) or not least <= int(value) <= most:
            raise ValueError(value)
        return int(value)

    return convert


def choice(allowed: Sequence[str]) -> Callable[[str], str]:
    def convert(value: str) -> str:
        if value not in allowed:
            raise ValueError(value)
        return value

    return convert


def path(value: str) -> str:
    """``click.Path()``: any path, but one that exists must be readable."""
    if os.path.lexists(value) and not os.access(value, os.R_OK):
        raise ValueError(value)
    return value


def json_object(value: str) -> dict[str, Any]:
    """What kgraph.cli.common.parse_json_object takes without a complaint."""
    if len(value) > JSON_CHARS:
        raise ValueError("too long")
    try:
        parsed = json.loads(value)
    except RecursionError as exc:
        raise ValueError("too deep") from exc
    if not isinstance(parsed, dict) or json_problem(parsed) is not None:
        raise ValueError(value)
    return parsed


class Param(NamedTuple):
    """One parameter of a command: ``name`` is its body's keyword; an argument when
    ``option`` is None (in order), else an option (a flag when ``convert`` is None).
    ``convert`` raises ValueError for a value Click would refuse or read otherwise."""

    name: str
    convert: Callable[[str], Any] | None = text
    option: str | None = None
    default: Any = None
    required: bool = False


def flag(option: str, name: str) -> Param:
    return Param(name, None, option, False)


JSON = flag("--json", "as_json")
ISSUE = number(0)
SHAPES: dict[tuple[str, str], tuple[Callable[..., None], tuple[Param, ...]]] = {
    ("workflow", "create"): (
        commands.workflow_create,
        (
            Param("issue", ISSUE),
            Param("branch"),
            Param("worktree", path, "--worktree"),
            Param("phase", choice(PHASES), "--phase", "research"),
            JSON,
        ),
    ),
    ("workflow", "get"): (commands.workflow_get, (Param("workflow_id"), JSON)),
    ("workflow", "find"): (commands.workflow_find, (Param("issue", ISSUE), JSON)),
    ("workflow", "list"): (
        commands.workflow_list,
        (
            Param("status", choice(STATUSES), "--status"),
            flag("--active", "active"),
            Param("limit", number(1), "--limit"),
            JSON,
        ),
    ),
    ("workflow", "set-phase"): (
        commands.workflow_set_phase,
        (Param("workflow_id"), Param("phase", choice(PHASES)), JSON),
    ),
    ("workflow", "set-status"): (
        commands.workflow_set_status,
        (Param("workflow_id"), Param("status", choice(STATUSES)), JSON),
    ),
    ("workflow", "log-action"): (
        commands.workflow_log_action,
        (
            Param("workflow_id"),
            Param("action"),
            Param("result", choice(ACTION_RESULTS)),
            Param("metadata", json_object, "--metadata"),
            JSON,
        ),
    ),
    ("workflow", "log-commit"): (
        commands.workflow_log_commit,
        (Param("workflow_id"), Param("sha"), Param("message"), JSON),
    ),
    ("milestone", "create"): (
        commands.milestone_create,
        (
            Param("name"),
            Param("github_number", ISSUE, "--github-number"),
            Param("phase", choice(PHASES), "--phase", "planning"),
            JSON,
        ),
    ),
    ("milestone", "get"): (commands.milestone_get, (Param("milestone_id"), JSON)),
    ("milestone", "find"): (commands.milestone_find, (Param("name"), JSON)),
    ("milestone", "list"): (
        commands.milestone_list,
        (Param("status", choice(STATUSES), "--status"), JSON),
    ),
    ("milestone", "set-phase"): (
        commands.milestone_set_phase,
        (Param("milestone_id"), Param("phase", choice(PHASES)), JSON),
    ),
    ("milestone", "set-status"): (
        commands.milestone_set_status,
        (Param("milestone_id"), Param("status", choice(STATUSES)), JSON),
    ),
    ("milestone", "add-workflow"): (
        commands.milestone_add_workflow,
        (
            Param("milestone_id"),
            Param("workflow_id"),
            Param("wave", number(1), "--wave", required=True),
            JSON,
        ),
    ),
}


class CheckpointCall(NamedTuple):
    """A command line of one of :data:`SHAPES`: the body to run and its values."""

    body: Callable[..., None]
    values: dict[str, Any]
    db_url: str | None = None


def parse_checkpoint_call(argv: Sequence[str]) -> CheckpointCall | None:
    """The call ``argv`` (without the program name) spells, or None when it is anything
    else or anything Click would refuse or read otherwise (then Click parses it)."""
    db_url, args = split_db(argv)
    shape = SHAPES.get((args[0], args[1])) if len(args) >= 2 else None
    if shape is None or not all(valid_text(a) for a in argv):
        return None
    body, params = shape
    values = _values(params, args[2:])
    return None if values is None else CheckpointCall(body, values, db_url or None)


def _values(params: Sequence[Param], tokens: list[str]) -> dict[str, Any] | None:
    options = {p.option: p for p in params if p.option is not None}
    values = {p.name: p.default for p in options.values()}
    given: set[str] = set()
    arguments: list[str] = []
    try:
        while tokens:
            token = tokens.pop(0)
            if not token.startswith("-"):
                arguments.append(token)
                continue
            option, equals, value = token.partition("=")
            param = options.get(option)
            if param is None or option in given:
                return None  # help, --, a typo, a repeat, a short option Click would split
            given.add(option)
            if param.convert is None:
                if equals:
                    return None
                values[param.name] = True
                continue
            if not equals:
                if not tokens or tokens[0].startswith("-"):
                    return None
                value = tokens.pop(0)
            values[param.name] = param.convert(value)
        positional = [p for p in params if p.option is None]
        if len(arguments) != len(positional):
            return None
        for param, argument in zip(positional, arguments, strict=True):
            assert param.convert is not None
            values[param.name] = param.convert(argument)
    except ValueError:
        return None
    if any(p.required and p.option not in given for p in options.values()):
        return None
    return values


def run_checkpoint_call(argv: Sequence[str]) -> int | None:
    """Run ``argv`` when it is a call of :data:`SHAPES` on an up-to-date database; its
    exit code, or None to let Click run it."""
    call = parse_checkpoint_call(argv)
    if call is None:
        return None
    from kgraph.db import open_direct, resolve_database_url

    try:
        db = open_direct(resolve_database_url(call.db_url))
    except Exception:  # a setting or a driver Click's path reports in its own words
        return None
    if db is None:
        return None
    try:
        try:
            call.body(db, **call.values)
        finally:
            db.close()
    except (Exception, KeyboardInterrupt) as exc:
        from kgraph.cli.failures import failure_exit

        return failure_exit(exc)
    return 0
