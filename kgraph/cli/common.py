"""Helpers every command module shares: opening the database, --json, printing (the
printing is kgraph.cli.plain's, which needs no Click)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kgraph.cli.plain import console as console
from kgraph.cli.plain import print_json as print_json
from kgraph.cli.plain import table as table
from kgraph.db import Database, open_database, resolve_database_url
from kgraph.jsontext import json_problem
from kgraph.limits import JOBS, JSON_CHARS, JSON_DEPTH, NAME_CHARS, QUERY_CHARS

if TYPE_CHECKING:
    from kgraph.api import Project

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")

# Values are checked where they come in, so nothing deeper meets a number SQLite cannot
# store, a date before year 1, or JSON too deep to serialise.
INT64_MAX = 2**63 - 1
MAX_DAYS = 100_000  # ~270 years: any more and a date computed from it leaves the calendar
MAX_JOBS = JOBS
MAX_JSON_DEPTH = JSON_DEPTH
MAX_JSON_CHARS = JSON_CHARS
MAX_NAME_CHARS = NAME_CHARS  # a code name, id or path to look up
MAX_QUERY_CHARS = QUERY_CHARS  # a search query


def int_range(min: int | None = None, max: int | None = None) -> click.IntRange:
    """An integer type no wider than SQLite's 64 bits (2**63 would fail at the write)."""
    return click.IntRange(
        min=-INT64_MAX - 1 if min is None else min, max=INT64_MAX if max is None else max
    )


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses ``nan`` and ``inf``, which compare false with every
    bound and would slip through click's FloatRange."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import math

        result = super().convert(value, param, ctx)
        if not math.isfinite(result):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return result


ISSUE = int_range(0)
DAYS = int_range(0, MAX_DAYS)


def max_length(limit: int) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback refusing text (or each of several texts) longer than ``limit``."""

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        values = value if isinstance(value, tuple) else (value,)
        for text in values:
            if isinstance(text, str) and len(text) > limit:
                raise click.BadParameter(
                    f"is {len(text):,} characters long (at most {limit:,})", ctx, param
                )
        return value

    return check


def regular_file(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A callback for FILE arguments that are read: a regular file (or ``-``), so a FIFO
    cannot block and a device cannot fill memory."""
    import stat

    if value is None or value == "-":
        return value
    try:
        mode = Path(value).stat().st_mode
    except OSError as exc:
        raise click.BadParameter(f"cannot read {value}: {exc.strerror or exc}", ctx, param) from exc
    if not stat.S_ISREG(mode):
        raise click.BadParameter(f"{value} is not a regular file", ctx, param)
    return value


def output_file(ctx: click.Context, param: click.Parameter, value: Any) -> Path | None:
    """A callback for every -o/--output (given as text): a regular file (replaced) or a new
    one in a folder that exists; anything else is one line, exit 2. Outputs are written
    aside and renamed over their target, so without this a device (``/dev/null``), a FIFO
    or a symlink to one would be replaced by a file."""
    from kgraph.errors import InvalidValueError

    if value is None:
        return None
    text = str(value)
    if not text.strip():
        raise InvalidValueError(f"{param.opts[-1]} must name a file")
    path = Path(text)
    if (path.exists() or path.is_symlink()) and not path.is_file():
        raise InvalidValueError(
            f"cannot write {text}: it is not a regular file (a device, FIFO or folder is "
            "never replaced)"
        )
    if not path.parent.is_dir():  # never a folder made where a typo pointed (as root: /x)
        raise InvalidValueError(f"cannot write {text}: folder {path.parent} does not exist")
    return path


def get_db(ctx: click.Context) -> Database:
    """The database for this invocation (opened once, on first use)."""
    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    db = obj.get("db")
    if db is None:
        db = open_database(resolve_database_url(obj.get("db_url")))
        obj["db"] = db
        root.obj = obj
        root.call_on_close(db.close)
    assert isinstance(db, Database)
    return db


def get_project(ctx: click.Context) -> Project:
    """The project for this invocation on :func:`get_db`'s database: the commands that
    query call :class:`kgraph.Project`, as the MCP server and library callers do, so the
    three give the same answers."""
    from kgraph.api import Project
    from kgraph.db import project_root

    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    project = obj.get("project")
    if project is None:
        project = Project(get_db(ctx), project_root())
        obj["project"] = project
        root.obj = obj
    assert isinstance(project, Project)
    return project


def parse_json_object(value: str | None, what: str) -> dict[str, Any] | None:
    """Parse a JSON object given on the command line; a clear error otherwise."""
    if value is None:
        return None
    if len(value) > MAX_JSON_CHARS:
        raise click.BadParameter(f"is over {MAX_JSON_CHARS:,} characters", param_hint=what)
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"not valid JSON ({exc.msg} at position {exc.pos})", param_hint=what
        ) from exc
    except RecursionError as exc:
        raise click.BadParameter(
            f"nested deeper than {MAX_JSON_DEPTH} levels", param_hint=what
        ) from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter(
            'must be a JSON object, e.g. \'{"key": "value"}\'', param_hint=what
        )
    problem = json_problem(parsed)
    if problem:
        raise click.BadParameter(problem, param_hint=what)
    return parsed
